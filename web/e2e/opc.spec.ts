/**
 * The OPC screen with real parts: the real agent (`target/debug/gemba-agent`, its camera
 * `cam0` on GStreamer's test pattern) and a real OPC UA server, Python's `asyncua` from
 * PyPI (`edge-agent/tests/opcua_server.py`, a PLC's line `Line1`), on this machine. An
 * org user of an organisation holding 'OPCUA Explorer' asks the device to discover the
 * server, browses its address space node by node, reads a variable the PLC changes,
 * binds it to cam0 as the cycles' metadata key `part`, and removes the binding again.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

import { expect, test } from '@playwright/test';

import { addDevice, createOrganization, createUser, openFromMenu, runAgent, subscribe, uiLogin, uniqueName } from './env';

const PASSWORD = 'opc-user-1';

/** A port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((ok, no) => {
    const s = createServer();
    s.once('error', no);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? ok(a.port) : no(new Error('no port'))));
    });
  });
}

/** The test PLC on `port`, once it says `ready`; `say` sends it a command and waits for `ok`. */
async function startPlc(port: number): Promise<{ proc: ChildProcessWithoutNullStreams; say: (line: string) => Promise<void> }> {
  const root = resolve(import.meta.dirname, '../..');
  const python = process.env.GEMBA_TEST_PYTHON ?? join(root, 'target/venv/bin/python');
  const proc = spawn(python, [join(root, 'edge-agent/tests/opcua_server.py'), String(port)]);
  let out = '';
  let wake = () => {};
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    wake();
  });
  proc.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const line = async (): Promise<string> => {
    const until = Date.now() + 20_000;
    for (;;) {
      const i = out.indexOf('\n');
      if (i >= 0) {
        const l = out.slice(0, i);
        out = out.slice(i + 1);
        return l;
      }
      if (Date.now() > until) throw new Error(`the test PLC said nothing: ${out}`);
      await new Promise<void>((ok) => {
        wake = ok;
        setTimeout(ok, 200);
      });
    }
  };
  for (;;) {
    const l = await line();
    if (l === 'ready') break;
  }
  return {
    proc,
    say: async (cmd: string) => {
      proc.stdin.write(`${cmd}\n`);
      expect(await line()).toBe('ok');
    },
  };
}

test('a device discovers an OPC UA server, browses it, reads a value and binds it', async ({ page }) => {
  test.setTimeout(120_000);
  const run = uniqueName();
  const org = await createOrganization(`Opc ${run}`);
  await subscribe(org.id, 'OPCUA Explorer');
  const bench = await addDevice(org.id, 'Bench');
  const port = await freePort();
  const plc = await startPlc(port);
  const stopAgent = runAgent(bench.code, ['cam0=test']);
  try {
    await plc.say('set PartNumber P-100');
    const email = `opc-${run}@acme.example`;
    await createUser(email, PASSWORD, 'org_user', org.id);
    await uiLogin(page, email, PASSWORD);
    await openFromMenu(page, 'OPC');
    await expect(page.getByRole('heading', { name: 'OPC', level: 1 })).toBeVisible();

    // The device, once online (the screen's stream says so).
    await page.getByRole('combobox', { name: 'Device' }).selectOption({ label: 'Bench' });
    const discover = page.getByRole('button', { name: 'Discover servers' });
    await expect(discover).toBeEnabled({ timeout: 60_000 });
    const url = `opc.tcp://127.0.0.1:${port}/`;
    await page.getByLabel('Also ask at (opc.tcp:// URLs, optional)').fill(url);
    await discover.click();
    const servers = page.getByRole('table', { name: 'Servers found' });
    await expect(servers.getByRole('row', { name: /gemba test PLC/ })).toBeVisible({ timeout: 30_000 });
    await servers.getByRole('button', { name: 'Browse gemba test PLC' }).click();

    // The Objects folder, then Line1 opened: its variables with their values.
    const tree = page.getByRole('list', { name: /^Nodes of opc\.tcp:/ });
    await expect(tree.getByRole('button', { name: 'Line1', exact: true })).toBeVisible({ timeout: 30_000 });
    await tree.getByRole('button', { name: 'Open Line1' }).click();
    const part = tree.getByRole('button', { name: 'PartNumber', exact: true });
    await expect(part).toBeVisible({ timeout: 30_000 });
    await expect(tree.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'PartNumber', exact: true }) })).toContainText('= P-100');
    await part.click();
    const chosen = page.getByLabel('Chosen node');
    await expect(chosen.getByText('ns=2;s=Line1.PartNumber')).toBeVisible();

    // The PLC changes it; reading again shows the new value.
    await plc.say('set PartNumber P-42');
    await chosen.getByRole('button', { name: 'Read value' }).click();
    await expect(chosen.getByLabel('Value')).toHaveText('P-42', { timeout: 30_000 });

    // Bound to cam0 as the cycles' metadata key "part".
    const form = page.getByRole('form', { name: 'Bind PartNumber to a camera' });
    await form.getByLabel('Camera').selectOption('cam0');
    await form.getByLabel('Role').selectOption({ label: 'Metadata' });
    await form.getByRole('button', { name: 'Bind' }).click();
    await expect(form.getByText('Metadata key is required!')).toBeVisible();
    await form.getByLabel('Metadata key').fill('part');
    await form.getByRole('button', { name: 'Bind' }).click();
    const bindings = page.getByRole('table', { name: 'Bindings of Bench' });
    const row = bindings.getByRole('row', { name: /ns=2;s=Line1\.PartNumber/ });
    await expect(row).toContainText('cam0');
    await expect(row).toContainText('Any task');
    await expect(row).toContainText('Metadata part');
    await page.screenshot({ path: test.info().outputPath('opc.png'), fullPage: true });

    // Removed, after a confirmation.
    await row.getByRole('button', { name: /^Remove the binding of ns=2;s=Line1\.PartNumber/ }).click();
    await page.getByRole('dialog', { name: 'Remove the binding?' }).getByRole('button', { name: 'Remove' }).click();
    await expect(page.getByText('No node is bound yet')).toBeVisible();
  } finally {
    stopAgent();
    plc.proc.kill('SIGKILL');
  }
});
