import { useState } from 'react';

/** A set of chosen ids (rows ticked in a table): the set, a toggle, and a way to set it whole. */
export function useIdSet(): [ReadonlySet<number>, (id: number) => void, (ids: ReadonlySet<number>) => void] {
  const [chosen, setChosen] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number) =>
    setChosen((c) => {
      const n = new Set(c);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  return [chosen, toggle, setChosen];
}
