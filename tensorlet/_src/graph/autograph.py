"""AutoGraph: rewrite a Python function's control flow so that it works on tensors while tracing.

The function's source is parsed with ``ast`` and rewritten:

* ``if``/``while``/``for`` become calls to ``ag__.if_stmt`` / ``while_stmt`` / ``for_stmt`` with the body as
  a local function taking and returning the variables it modifies.  At run time those helpers use plain
  Python when the condition/iterable is a Python value, and ``tf.cond`` / ``tf.while_loop`` when it is a
  tensor being traced.
* ``return`` inside an ``if`` (early return) is canonicalized: the statements after such an ``if`` move into
  its ``else``; an ``if`` whose branches all return becomes ``return ag__.if_stmt(...)``.
* ``break``/``continue`` become flags guarding the rest of the loop body (and ``break`` ends the loop).
* ``a and b``, ``a or b``, ``not a`` on tensors become ``tf.logical_*`` (lazily evaluated operands keep Python
  short-circuiting for Python values); ``print`` of tensors becomes ``tf.print``; ``range``/``len`` of tensors
  become ``tf.range``/``tf.shape``; calls to other user functions are converted recursively.

Generated code keeps the user's file name and line numbers, so errors point at the user's source line.
Functions whose source is unavailable (lambdas in a REPL, builtins) run unconverted.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
import types
import weakref

from tensorlet._src.ops.registry import tf_export  # noqa: E402

_TENSORLET_DIR = __file__.rsplit("_src", 1)[0]  # .../tensorlet/

_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_SKIP_MODULES = ("tensorlet", "numpy", "jax", "builtins", "functools", "collections", "abc", "typing", "keras",
                 "tensorflow", "scipy", "ml_dtypes")


class _Unsupported(Exception):
    pass


# --- entry points -----------------------------------------------------------------------------------------

def convert(fn):
    """The AutoGraph-converted version of ``fn`` (``fn`` itself when there is nothing to convert)."""
    if isinstance(fn, types.MethodType):
        conv = convert(fn.__func__)
        return fn if conv is fn.__func__ else types.MethodType(conv, fn.__self__)
    if isinstance(fn, functools.partial):
        conv = convert(fn.func)
        return fn if conv is fn.func else functools.partial(conv, *fn.args, **fn.keywords)
    if not isinstance(fn, types.FunctionType):
        call = type(fn).__dict__.get("__call__") or getattr(type(fn), "__call__", None)  # noqa: B004
        if isinstance(call, types.FunctionType) and not _skip(call):
            conv = convert(call)
            if conv is not call:
                return types.MethodType(conv, fn)
        return fn
    if _skip(fn):
        return fn
    try:
        hit = _cache.get(fn.__code__)
    except TypeError:
        hit = None
    if hit is not None:
        code, ok = hit
        return _rebuild_or_keep(fn, code) if ok else fn
    try:
        code = _transform(fn)
    except (_Unsupported, OSError, TypeError, SyntaxError, IndentationError):
        code = None
    try:
        _cache[fn.__code__] = (code, code is not None)
    except TypeError:
        pass
    return _rebuild_or_keep(fn, code) if code is not None else fn


def _rebuild_or_keep(fn, code):
    try:
        return _rebuild(fn, code)
    except _Unsupported:
        return fn


def _skip(fn) -> bool:
    mod = getattr(fn, "__module__", None) or ""
    if mod.split(".")[0] in _SKIP_MODULES:
        return True
    code = getattr(fn, "__code__", None)  # ``functools.wraps`` copies the user's __module__ onto our wrappers
    if code is not None and code.co_filename.startswith(_TENSORLET_DIR):
        return True
    if getattr(fn, "__name__", "") == "<lambda>":
        return True
    return getattr(fn, "_tensorlet_do_not_convert", False)


@tf_export("autograph.experimental.do_not_convert")
def do_not_convert(func=None):
    """``@tf.autograph.experimental.do_not_convert``: keep ``func``'s Python control flow as written."""
    if func is None:
        return do_not_convert
    func._tensorlet_do_not_convert = True
    return func


# --- building the converted function ----------------------------------------------------------------------

def _rebuild(fn, code):
    from tensorlet._src.graph import autograph_runtime as rt

    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = []
    for name in code.co_freevars:
        if name == "ag__":
            closure.append(types.CellType(rt))
        elif name in cells:
            closure.append(cells[name])
        else:
            raise _Unsupported(name)
    new = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, tuple(closure) or None)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update(fn.__dict__)
    new.__wrapped__ = fn
    new._tensorlet_converted = True
    return new


def _transform(fn):
    # the code object's source, not ``fn``'s: inspect follows ``__wrapped__`` to the function a
    # ``functools.wraps`` decorator wraps, whose source is not the code being converted
    src = inspect.getsource(fn.__code__)
    filename = inspect.getsourcefile(fn.__code__) or "<autograph>"
    _, first_line = inspect.getsourcelines(fn.__code__)
    tree = ast.parse(textwrap.dedent(src))
    fdef = tree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise _Unsupported("not a def")
    if isinstance(fdef, ast.AsyncFunctionDef) or _has_yield(fdef):
        raise _Unsupported("generator/async")
    fdef.decorator_list = []
    tr = _Transformer()
    fdef.body = tr.block(fdef.body, in_function=True)
    if not tr.changed:
        raise _Unsupported("nothing to convert")
    ast.increment_lineno(tree, first_line - 1)
    freevars = list(fn.__code__.co_freevars)
    # wrap in a factory so the user's free variables (and ag__) stay free variables of the converted function
    factory = ast.FunctionDef(
        name="__ag_factory", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in freevars + ["ag__"]],
                                                kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))], decorator_list=[], returns=None,
        type_params=[])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, filename, "exec")
    fcode = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in fcode.co_consts if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    return inner


def _has_yield(node) -> bool:
    for n in ast.walk(node):
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return True
    return False


# --- analysis helpers ------------------------------------------------------------------------------------

def _assigned_names(stmts) -> list[str]:
    """Names bound by ``stmts`` (not inside nested function/class definitions), in first-seen order."""
    out = []

    def add(n):
        if n not in out and not n.startswith(("__ag_if", "__ag_while", "__ag_for", "__ag_item")):
            out.append(n)

    def visit_target(t):
        if isinstance(t, ast.Name):
            add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                visit_target(e)
        elif isinstance(t, ast.Starred):
            visit_target(t.value)

    class V(ast.NodeVisitor):
        def visit_Assign(self, node):
            for t in node.targets:
                visit_target(t)
            self.generic_visit(node)

        def visit_AugAssign(self, node):
            visit_target(node.target)
            self.generic_visit(node)

        def visit_AnnAssign(self, node):
            visit_target(node.target)
            self.generic_visit(node)

        def visit_For(self, node):
            visit_target(node.target)
            self.generic_visit(node)

        def visit_NamedExpr(self, node):
            visit_target(node.target)
            self.generic_visit(node)

        def visit_With(self, node):
            for item in node.items:
                if item.optional_vars is not None:
                    visit_target(item.optional_vars)
            self.generic_visit(node)

        def visit_FunctionDef(self, node):
            add(node.name)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_ClassDef(self, node):
            add(node.name)

        def visit_Lambda(self, node):
            pass

        def visit_Import(self, node):
            for a in node.names:
                add((a.asname or a.name).split(".")[0])

        visit_ImportFrom = visit_Import

    for s in stmts:
        V().visit(s)
    return out


def _contains(stmts, kinds, stop_at_loops=False) -> bool:
    for s in stmts:
        for n in _walk_no_defs(s, stop_at_loops):
            if isinstance(n, kinds):
                return True
    return False


def _walk_no_defs(node, stop_at_loops=False):
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if stop_at_loops and isinstance(c, (ast.For, ast.While)):
                continue
            todo.append(c)


def _always_returns(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    if isinstance(last, ast.Raise):
        return True
    return False


def _name(n, store=False):
    return ast.Name(id=n, ctx=ast.Store() if store else ast.Load())


def _ag(attr):
    return ast.Attribute(value=_name("ag__"), attr=attr, ctx=ast.Load())


def _call(fn, args, keywords=()):
    return ast.Call(func=fn, args=list(args), keywords=list(keywords))


def _tuple(names, store=False):
    return ast.Tuple(elts=[_name(n, store) for n in names], ctx=ast.Store() if store else ast.Load())


def _str_tuple(names):
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _fdef(name, params, body):
    return ast.FunctionDef(name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                                                         kwonlyargs=[], kw_defaults=[], defaults=[]),
                           body=body or [ast.Pass()], decorator_list=[], returns=None, type_params=[])


def _define_if_missing(names):
    """``try: n  except NameError: n = ag__.UNDEFINED`` for each name (so it can be passed to a helper)."""
    out = []
    for n in names:
        out.append(ast.Try(body=[ast.Expr(value=_name(n))],
                           handlers=[ast.ExceptHandler(type=_name("NameError"), name=None,
                                                       body=[ast.Assign(targets=[_name(n, True)],
                                                                        value=_ag("UNDEFINED"))])],
                           orelse=[], finalbody=[]))
    return out


# --- the transformer ----------------------------------------------------------------------------------------

class _Transformer:
    def __init__(self):
        self.changed = False
        self.counter = 0
        self.nonlocal_names = set()

    def fresh(self, base):
        self.counter += 1
        return f"__ag_{base}_{self.counter}"

    def block(self, stmts, in_function=False):
        stmts = self._canonicalize_returns(stmts)
        out = []
        for s in stmts:
            r = self.stmt(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def _canonicalize_returns(self, stmts):
        """``if c: ...return a`` followed by more statements: move them into the ``else``."""
        stmts = list(stmts)
        for i, s in enumerate(stmts):
            if isinstance(s, ast.If) and i + 1 < len(stmts):
                rest = stmts[i + 1:]
                if _always_returns(s.body) and not _always_returns(s.orelse):
                    s.orelse = self._canonicalize_returns(list(s.orelse) + rest)
                    return stmts[:i + 1]
                if _always_returns(s.orelse) and not _always_returns(s.body) and s.orelse:
                    s.body = self._canonicalize_returns(list(s.body) + rest)
                    return stmts[:i + 1]
        return stmts

    def stmt(self, s):
        self.expr_fix(s)
        if isinstance(s, ast.If):
            return self.if_stmt(s)
        if isinstance(s, ast.While):
            return self.while_stmt(s)
        if isinstance(s, ast.For):
            return self.for_stmt(s)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return s  # nested definitions are converted when called (ag__.converted_call)
        for field in ("body", "orelse", "finalbody"):
            if hasattr(s, field) and isinstance(getattr(s, field), list) and not isinstance(s, ast.Try):
                setattr(s, field, self.block(getattr(s, field)))
        if isinstance(s, (ast.With, ast.AsyncWith)):
            s.body = self.block(s.body)
        if isinstance(s, ast.Try):
            s.body = self.block(s.body)
            for h in s.handlers:
                h.body = self.block(h.body)
            s.orelse = self.block(s.orelse)
            s.finalbody = self.block(s.finalbody)
        return s

    # expressions: and/or/not, print/range/len, calls to user functions
    def expr_fix(self, s):
        tr = self

        class E(ast.NodeTransformer):
            def visit_BoolOp(self, node):
                self.generic_visit(node)
                tr.changed = True
                fn = "and_" if isinstance(node.op, ast.And) else "or_"
                lambdas = [ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
                                                         defaults=[]), body=v) for v in node.values]
                return ast.copy_location(_call(_ag(fn), lambdas), node)

            def visit_UnaryOp(self, node):
                self.generic_visit(node)
                if isinstance(node.op, ast.Not):
                    tr.changed = True
                    return ast.copy_location(_call(_ag("not_"), [node.operand]), node)
                return node

            def visit_Call(self, node):
                self.generic_visit(node)
                f = node.func
                if isinstance(f, ast.Name) and f.id in ("super", "locals", "globals", "vars", "eval", "exec"):
                    return node
                if isinstance(f, ast.Call) and isinstance(f.func, ast.Name) and f.func.id == "super":
                    return node
                tr.changed = True
                node.func = ast.copy_location(_call(_ag("converted"), [f]), f)
                return node

            def visit_Lambda(self, node):
                return node

            def visit_FunctionDef(self, node):
                return node

            visit_AsyncFunctionDef = visit_FunctionDef

            def visit_ClassDef(self, node):
                return node

        for field, value in ast.iter_fields(s):
            if isinstance(value, ast.expr):
                setattr(s, field, E().visit(value))
            elif isinstance(value, list):
                setattr(s, field, [E().visit(v) if isinstance(v, ast.expr) else v for v in value])
            elif isinstance(value, ast.withitem) or (isinstance(value, list)):
                pass
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                item.context_expr = E().visit(item.context_expr)

    # --- if ------------------------------------------------------------------------------------
    def if_stmt(self, s):
        self.changed = True
        body_returns = _always_returns(s.body)
        else_returns = _always_returns(s.orelse)
        if _contains(s.body + s.orelse, (ast.Break, ast.Continue), stop_at_loops=True):
            s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            return s  # break/continue handled by the enclosing loop's flags (already rewritten)
        if body_returns and else_returns:
            names = [n for n in _assigned_names(s.body + s.orelse)]
            tn, fn_ = self.fresh("if_true"), self.fresh("if_false")
            pre = _define_if_missing(names)
            t_def = _fdef(tn, names, self.block(s.body))
            f_def = _fdef(fn_, names, self.block(s.orelse))
            ret = ast.Return(value=_call(_ag("if_stmt"), [s.test, _name(tn), _name(fn_), _tuple(names),
                                                          _str_tuple(names), ast.Constant(True)]))
            return [ast.copy_location(x, s) for x in pre + [t_def, f_def, ret]]
        if _contains(s.body + s.orelse, (ast.Return,), stop_at_loops=False):
            raise _Unsupported("return in only one branch of a nested if")
        names = _assigned_names(s.body + s.orelse)
        tn, fn_ = self.fresh("if_true"), self.fresh("if_false")
        pre = _define_if_missing(names)
        t_def = _fdef(tn, names, self.block(s.body) + [ast.Return(value=_tuple(names))])
        f_def = _fdef(fn_, names, self.block(s.orelse) + [ast.Return(value=_tuple(names))])
        call = _call(_ag("if_stmt"), [s.test, _name(tn), _name(fn_), _tuple(names), _str_tuple(names),
                                      ast.Constant(False)])
        assign = ast.Assign(targets=[_tuple(names, store=True)], value=call) if names else ast.Expr(value=call)
        return [ast.copy_location(x, s) for x in pre + [t_def, f_def, assign]]

    # --- loops -------------------------------------------------------------------------------
    def _loop_body(self, body, brk, cont, live):
        """Rewrite break/continue of this loop into flags; guard the statements that follow them with the flags
        the loop defines (``live``: a loop with only ``break`` has no continue flag to read)."""
        out = []
        for i, st in enumerate(body):
            if isinstance(st, ast.Break):
                out.append(ast.copy_location(ast.Assign(targets=[_name(brk, True)], value=ast.Constant(True)), st))
                return out
            if isinstance(st, ast.Continue):
                out.append(ast.copy_location(ast.Assign(targets=[_name(cont, True)], value=ast.Constant(True)), st))
                return out
            if isinstance(st, ast.If) and _contains([st], (ast.Break, ast.Continue), stop_at_loops=True):
                st.body = self._loop_body(st.body, brk, cont, live)
                st.orelse = self._loop_body(st.orelse, brk, cont, live)
                out.append(st)
                rest = self._loop_body(body[i + 1:], brk, cont, live)
                if rest:
                    guard = _call(_ag("not_"), [_call(_ag("or_"), [
                        ast.Lambda(args=_noargs(), body=_name(f)) for f in live])])
                    out.append(ast.copy_location(ast.If(test=guard, body=rest, orelse=[]), st))
                return out
            if isinstance(st, (ast.With, ast.Try)) and _contains([st], (ast.Break, ast.Continue), stop_at_loops=True):
                raise _Unsupported("break/continue inside with/try in a loop")
            out.append(st)
        return out

    def while_stmt(self, s):
        self.changed = True
        if s.orelse:
            raise _Unsupported("while/else")
        if _contains(s.body, (ast.Return,)):
            raise _Unsupported("return inside a loop")
        brk, cont = self.fresh("break"), self.fresh("continue")
        has_brk = _contains(s.body, (ast.Break,), stop_at_loops=True)
        has_cont = _contains(s.body, (ast.Continue,), stop_at_loops=True)
        flags = ([brk] if has_brk else []) + ([cont] if has_cont else [])
        body = self._loop_body(list(s.body), brk, cont, flags)
        names = [n for n in _assigned_names(body) if n not in flags] + flags
        init = [ast.Assign(targets=[_name(f, True)], value=ast.Constant(False)) for f in flags]
        body = ([ast.Assign(targets=[_name(cont, True)], value=ast.Constant(False))] if has_cont else []) + \
            self.block(body)
        test = s.test
        if has_brk:
            test = _call(_ag("and_"), [ast.Lambda(args=_noargs(), body=_call(_ag("not_"), [_name(brk)])),
                                       ast.Lambda(args=_noargs(), body=test)])
        cn, bn = self.fresh("while_cond"), self.fresh("while_body")
        pre = _define_if_missing([n for n in names if n not in flags])
        c_def = _fdef(cn, names, [ast.Return(value=test)])
        b_def = _fdef(bn, names, body + [ast.Return(value=_tuple(names))])
        call = _call(_ag("while_stmt"), [_name(cn), _name(bn), _tuple(names), _str_tuple(names)])
        assign = ast.Assign(targets=[_tuple(names, store=True)], value=call) if names else ast.Expr(value=call)
        return [ast.copy_location(x, s) for x in init + pre + [c_def, b_def, assign]]

    def for_stmt(self, s):
        self.changed = True
        if s.orelse:
            raise _Unsupported("for/else")
        if _contains(s.body, (ast.Return,)):
            raise _Unsupported("return inside a loop")
        brk, cont = self.fresh("break"), self.fresh("continue")
        has_brk = _contains(s.body, (ast.Break,), stop_at_loops=True)
        has_cont = _contains(s.body, (ast.Continue,), stop_at_loops=True)
        flags = ([brk] if has_brk else []) + ([cont] if has_cont else [])
        body = self._loop_body(list(s.body), brk, cont, flags)
        item = self.fresh("item")
        target_names = _assigned_names([ast.Assign(targets=[s.target], value=ast.Constant(0))])
        names = [n for n in _assigned_names(body) if n not in flags and n not in target_names]
        names = names + [n for n in target_names if n not in names] + flags
        init = [ast.Assign(targets=[_name(f, True)], value=ast.Constant(False)) for f in flags]
        unpack = ast.Assign(targets=[s.target], value=_name(item))
        body = [unpack] + ([ast.Assign(targets=[_name(cont, True)], value=ast.Constant(False))] if has_cont else []) \
            + self.block(body)
        bn = self.fresh("for_body")
        pre = _define_if_missing([n for n in names if n not in flags])
        b_def = _fdef(bn, [item] + names, body + [ast.Return(value=_tuple(names))])
        extra = [ast.Constant(brk if has_brk else None)]
        call = _call(_ag("for_stmt"), [s.iter, _name(bn), _tuple(names), _str_tuple(names)] + extra)
        assign = ast.Assign(targets=[_tuple(names, store=True)], value=call) if names else ast.Expr(value=call)
        return [ast.copy_location(x, s) for x in init + pre + [b_def, assign]]


def _noargs():
    return ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
