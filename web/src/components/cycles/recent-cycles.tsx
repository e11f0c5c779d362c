import type { ReactNode } from 'react';

import type { BadReason, RecentCycle } from '@/api/generated';
import { stepColour } from '@/components/charts/palette';
import { formatDateTime, seconds } from '@/lib/format';


/** A step's name from its task's list, else "Step n" (1-based). */
function stepName(steps: readonly string[] | undefined, step: number) {
  return steps?.[step] ?? `Step ${step + 1}`;
}

/** Why a cycle is bad, in words: "Missed Pick cover", "Too long"… */
export function reasonText(r: BadReason, steps: readonly string[] | undefined): string {
  switch (r.reason) {
    case 'missed_step':
      return `Missed ${stepName(steps, r.step)}`;
    case 'negative_step':
      return `Did ${stepName(steps, r.step)} (a step not to do)`;
    case 'wrong_order':
      return `${stepName(steps, r.step)} out of order`;
    case 'too_long':
      return 'Too long';
  }
}


/**
 * One cycle as a bar: each step's segment in its colour, at its place and length in
 * the cycle; idle time left blank. Named for screen readers by its steps and times.
 */
export function StepBar({ cycle, steps }: { cycle: RecentCycle; steps: readonly string[] | undefined }) {
  const total = Math.max(cycle.end_ms - cycle.start_ms, 1);
  const label = cycle.segments.map((s) => `${stepName(steps, s.step)} ${seconds(s.end_ms - s.start_ms)}`).join(', ');
  return (
    <div className="step-bar" role="img" aria-label={label || 'No steps'}>
      {cycle.segments.map((s, i) => (
        <span
          key={i}
          className="step-bar-segment"
          title={`${stepName(steps, s.step)}: ${seconds(s.end_ms - s.start_ms)}`}
          style={{
            left: `${((s.start_ms - cycle.start_ms) / total) * 100}%`,
            width: `${(Math.max(s.end_ms - s.start_ms, 0) / total) * 100}%`,
            background: stepColour(s.step),
          }}
        />
      ))}
    </div>
  );
}

/**
 * A device's latest cycles, newest first: when each ended, on which camera and task,
 * its cycle time, its steps as a bar, and good or bad with the reasons. The legend
 * names the steps' colours. `action` adds a last column (e.g. the cycle's changes).
 */
export function RecentCycles({
  cycles,
  taskSteps,
  taskName,
  label = 'Latest cycles',
  action,
}: {
  cycles: readonly RecentCycle[];
  /** The table's name. */
  label?: string;
  taskSteps: { [task: number]: string[] | undefined };
  taskName: (id: number | null) => string;
  action?: (cycle: RecentCycle) => ReactNode;
}) {
  if (cycles.length === 0) return <p className="muted">No cycle received yet.</p>;
  const tasks = [...new Set(cycles.map((c) => c.task))];
  return (
    <>
      <table className="data-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Ended</th>
            <th scope="col">Camera</th>
            <th scope="col">Task</th>
            <th scope="col">Cycle time</th>
            <th scope="col">Steps</th>
            <th scope="col">Verdict</th>
            {action ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {cycles.map((c) => {
            const steps = taskSteps[c.task];
            return (
              <tr key={c.id}>
                <td>{formatDateTime(c.end_ms)}</td>
                <td>{c.camera}</td>
                <td>{taskName(c.task)}</td>
                <td>{seconds(c.end_ms - c.start_ms)}</td>
                <td className="step-bar-cell">
                  <StepBar cycle={c} steps={steps} />
                </td>
                <td>
                  {c.good ? (
                    <span className="badge status-online">Good</span>
                  ) : (
                    <>
                      <span className="badge status-bad">Bad</span>{' '}
                      <span className="muted">{c.reasons.map((r) => reasonText(r, steps)).join('; ')}</span>
                    </>
                  )}
                </td>
                {action ? <td>{action(c)}</td> : null}
              </tr>
            );
          })}
        </tbody>
      </table>
      {tasks.map((t) => (
        <ul key={t} className="step-legend" aria-label={`Steps of ${taskName(t)}`}>
          {(taskSteps[t] ?? []).map((name, i) => (
            <li key={i}>
              <span className="step-swatch" style={{ background: stepColour(i) }} /> {name}
            </li>
          ))}
        </ul>
      ))}
    </>
  );
}
