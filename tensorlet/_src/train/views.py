"""``tf.train.TrackableView`` (the dependency graph of live objects) and ``tf.train.CheckpointView`` (the object
graph stored in a checkpoint)."""

from __future__ import annotations

from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.train import checkpoint as _ckpt
from tensorlet._src.train import format as _format
from tensorlet._src.train import trackable as _tr

__all__ = ["TrackableView", "CheckpointView"]


@tf_export("train.TrackableView")
class TrackableView:
    """The trackable children of objects reachable from ``root``."""

    def __init__(self, root):
        self._root = root

    @property
    def root(self):
        return self._root

    @classmethod
    def children(cls, obj, save_type="checkpoint", **kwargs):
        """``{name: child}`` of ``obj``, in TF's order."""
        return dict(_tr.children(obj))

    def descendants(self):
        """Every object reachable from the root, breadth first (the root first)."""
        return list(_tr.ObjectGraph(self._root).nodes)


@tf_export("train.CheckpointView")
class CheckpointView:
    """The object graph of the checkpoint at ``save_path`` (node ids as in its TrackableObjectGraph)."""

    def __init__(self, save_path):
        reader = _ckpt._open(save_path)
        if not reader.has(_format.OBJECT_GRAPH_KEY):
            raise ValueError(f"The checkpoint at {save_path} has no object graph")
        self._graph = _tr.parse_object_graph(reader.get(_format.OBJECT_GRAPH_KEY)[()])

    def children(self, node_id):
        """``{local name: child node id}`` of node ``node_id``."""
        return {c.local_name: c.node_id for c in self._graph.nodes[node_id].children}

    def descendants(self):
        """Every node id reachable from the root (0), breadth first."""
        seen, order = {0}, [0]
        for n in order:
            for c in self._graph.nodes[n].children:
                if c.node_id not in seen:
                    seen.add(c.node_id)
                    order.append(c.node_id)
        return order

    def match(self, obj):
        """``{node id: object}`` pairing the checkpoint's nodes with ``obj``'s dependency graph by name."""
        out = {0: obj}
        stack = [(0, obj)]
        while stack:
            nid, o = stack.pop(0)
            kids = dict(_tr.children(o))
            for c in self._graph.nodes[nid].children:
                child = kids.get(c.local_name)
                if child is not None and c.node_id not in out:
                    out[c.node_id] = child
                    stack.append((c.node_id, child))
        return out

    def diff(self, obj):
        """``(matched, unmatched node ids, unmatched objects)`` between the checkpoint and ``obj``'s graph."""
        matched = self.match(obj)
        nodes = set(self.descendants()) - set(matched)
        objs = [o for o in TrackableView(obj).descendants() if all(o is not m for m in matched.values())]
        return matched, sorted(nodes), objs
