/**
 * The OPC screen's address space of one server, as a tree opened lazily: plain state
 * and pure steps (the screen asks the device for a node's children when `toggle` says
 * to load them). The root is the Objects folder (a browse without a node id); a node
 * is keyed by its node id, so one node met under two parents is loaded once, and a
 * node already on the path is not opened again inside itself (address spaces may loop).
 */
import type { OpcuaNode, OpcuaNodeClass } from '@/api/generated';

/** The key of the root: the Objects folder's children. */
export const ROOT = '';

export type Branch =
  | { state: 'loading' }
  | { state: 'loaded'; nodes: OpcuaNode[]; truncated: boolean }
  | { state: 'failed'; message: string };

export type Tree = {
  endpoint: string;
  /** The nodes shown open (their children listed). */
  open: ReadonlySet<string>;
  /** What is known of each node's children. */
  branches: Readonly<Record<string, Branch>>;
};

/** One row of the tree as shown. */
export type Row = {
  node: OpcuaNode;
  depth: number;
  open: boolean;
  expandable: boolean;
  /** Its children's state, when it is open. */
  branch: Branch | null;
};

/** A server's tree, its root loading (the screen asks for it at once). */
export function newTree(endpoint: string): Tree {
  return { endpoint, open: new Set([ROOT]), branches: { [ROOT]: { state: 'loading' } } };
}

/** Methods have no children to browse; other nodes may. */
export function expandable(c: OpcuaNodeClass): boolean {
  return c !== 'method';
}

/**
 * Opens or closes node `id`: the tree after, and whether its children must be asked
 * for (opened and never loaded, or failed before).
 */
export function toggle(tree: Tree, id: string): { tree: Tree; load: boolean } {
  const open = new Set(tree.open);
  if (open.has(id)) {
    open.delete(id);
    return { tree: { ...tree, open }, load: false };
  }
  open.add(id);
  const b = tree.branches[id];
  const load = !b || b.state === 'failed';
  const branches = load ? { ...tree.branches, [id]: { state: 'loading' } as Branch } : tree.branches;
  return { tree: { ...tree, open, branches }, load };
}

/** Node `id`'s children arrived. */
export function loaded(tree: Tree, id: string, nodes: OpcuaNode[], truncated: boolean): Tree {
  return { ...tree, branches: { ...tree.branches, [id]: { state: 'loaded', nodes, truncated } } };
}

/** Node `id`'s children could not be had, and why. */
export function failed(tree: Tree, id: string, message: string): Tree {
  return { ...tree, branches: { ...tree.branches, [id]: { state: 'failed', message } } };
}

/** A node read again: its copy in every list of children takes the new value. */
export function refreshed(tree: Tree, node: OpcuaNode): Tree {
  const branches: Record<string, Branch> = {};
  for (const [k, b] of Object.entries(tree.branches)) {
    branches[k] = b.state === 'loaded' ? { ...b, nodes: b.nodes.map((n) => (n.node_id === node.node_id ? node : n)) } : b;
  }
  return { ...tree, branches };
}

/** The rows to show, depth first, under the open nodes. */
export function rows(tree: Tree): Row[] {
  const out: Row[] = [];
  const walk = (id: string, depth: number, path: ReadonlySet<string>) => {
    const b = tree.branches[id];
    if (!b || b.state !== 'loaded') return;
    for (const node of b.nodes) {
      const canOpen = expandable(node.node_class) && !path.has(node.node_id);
      const isOpen = canOpen && tree.open.has(node.node_id);
      out.push({ node, depth, open: isOpen, expandable: canOpen, branch: isOpen ? (tree.branches[node.node_id] ?? null) : null });
      if (isOpen) walk(node.node_id, depth + 1, new Set([...path, node.node_id]));
    }
  };
  walk(ROOT, 0, new Set());
  return out;
}
