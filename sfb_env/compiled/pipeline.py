"""The compiler pipeline of the compiled core's kernels: numba's own, with four passes changed.

numba inlines an ``inline="always"`` function by copying its body into the caller, with one
assignment per parameter (``param = argument``). A parameter that is one of the core's
namedtuples (``BatchState``: some 120 arrays, about 1,500 machine words) becomes a new
variable: a stack slot the size of the whole namedtuple, stored once and loaded at every use.
LLVM's SROA pass then splits every such slot back into its words, at about 0.15 s of compile
time per inlined call: SROA was 288 of the 308 s of LLVM function passes on the body of
``batch._step_batch`` (this project's machine, session 14).

``InlineSharingScopes`` replaces numba's inlining pass (see its section below): the same
inlining, without copying the callee's whole scope once per block of the callee.

``ForwardCopies`` runs right after the inlining and forwards those copies: where a
variable is assigned once from another variable whose one assignment is outside every loop
(so it never changes once set), every use of the copy reads the original instead. The program
is the same (the two names always hold the same value); the stack slots and the work SROA did
on them are gone.

``PlainConstantArguments`` passes int and bool constants to called kernels as plain values,
so numba compiles each kernel once, not once per constant value (see its section below).

``FieldLoadsLowering`` is numba's lowering pass with one change (see its section below): a
field of a namedtuple held in a stack slot is read from the slot, not by loading the whole
namedtuple (about a thousand words for ``BatchState``) and extracting the field. SROA went
from 111 s to 24 s on the body of ``batch._play_batch`` (session 20).

``KernelPipeline`` is numba's nopython pipeline with those four passes; the kernels are
compiled with it (``dispatch.kernel``).
"""

from __future__ import annotations

import copy

from numba.core import cgutils, ir, ir_utils, lowering, types
from numba.core.analysis import compute_cfg_from_blocks
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.dispatcher import Dispatcher
from numba.core.inline_closurecall import InlineWorker
from numba.core.typed_passes import NativeLowering
from numba.core.typing import signature
from numba.core.untyped_passes import InlineInlinables
from numba.extending import intrinsic


@register_pass(mutates_CFG=False, analysis_only=False)
class ForwardCopies(FunctionPass):
    """Forward ``a = b`` copies whose source is set once, outside every loop (see above)."""

    _name = "sfb_forward_copies"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state) -> bool:
        blocks = state.func_ir.blocks
        sources = forwardable_copies(blocks)
        if not sources:
            return False
        for block in blocks.values():
            block.body = [stmt for stmt in block.body
                          if not (isinstance(stmt, ir.Assign) and stmt.target.name in sources)]
        ir_utils.replace_vars(blocks, sources)
        state.func_ir._definitions = ir_utils.build_definitions(blocks)
        return True


def forwardable_copies(blocks: dict) -> dict[str, ir.Var]:
    """``{copy: source}`` for each ``copy = source`` assignment that may be forwarded: the copy
    and every variable along its chain of copies assigned exactly once, and the chain's first
    variable assigned once in a block outside every loop (an argument, or a value the kernel
    computes before its loops), so it holds one value from then on."""
    definitions = ir_utils.build_definitions(blocks)
    defined_in: dict[str, int] = {}
    copies: dict[str, ir.Var] = {}
    for label, block in blocks.items():
        for stmt in block.body:
            if not isinstance(stmt, ir.Assign):
                continue
            defined_in[stmt.target.name] = label
            if (isinstance(stmt.value, ir.Var)
                    and len(definitions.get(stmt.target.name, ())) == 1
                    and len(definitions.get(stmt.value.name, ())) == 1):
                copies[stmt.target.name] = stmt.value
    if not copies:
        return {}
    looped = {label for loop in compute_cfg_from_blocks(blocks).loops().values()
              for label in loop.body}
    sources = {}
    for name, source in copies.items():
        seen = {name}
        while source.name in copies and source.name not in seen:  # the chain's first variable
            seen.add(source.name)
            source = copies[source.name]
        label = defined_in.get(source.name)
        if label is not None and label not in looped and source.name not in copies:
            sources[name] = source
    return sources


# --- Inlining with one copy of the callee's scope per copy of its IR ------------------------
# numba's inliner copies the callee's IR block by block, each block with its own deep copy, and
# every block refers to the callee's one scope (every variable of the callee): so each block
# copies the whole scope again, blocks x variables. The step kernel inlines callees whose own
# inlining left them thousands of blocks and variables: most of its front end (about 55 of
# 70 s) went there. ``InlineSharingScopes`` is numba's ``InlineInlinables`` whose inliner lets
# the blocks of one copy of the IR share one copy of the scope, as a single deep copy of all the
# blocks would; the callees' own inlining (numba runs the untyped pipeline on each callee)
# uses it too.

_SHARING = False  # inside ``_SharingInliner.inline_ir``: the copies of one IR share scopes
_SCOPE_COPIES: dict[int, tuple[ir.Scope, ir.Scope]] = {}  # id(scope): (scope, its copy)


class _SharedScope(ir.Scope):
    """A callee's scope while it is inlined: within one copy of its IR, one copy of it."""

    def __deepcopy__(self, memo):
        if _SHARING:
            shared = _SCOPE_COPIES.get(id(self))
            if shared is not None and shared[0] is self:
                memo[id(self)] = shared[1]
                return shared[1]
        new = _SharedScope.__new__(_SharedScope)
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            new.__dict__[key] = copy.deepcopy(value, memo)
        if _SHARING:
            _SCOPE_COPIES[id(self)] = (self, new)
        return new


class _SharedScopeIR(ir.FunctionIR):
    """A callee's IR while it is inlined: each copy of it starts a new set of scope copies."""

    def copy(self):
        _SCOPE_COPIES.clear()
        return super().copy()


class _SharingInliner(InlineWorker):
    """numba's inliner; the callee's IR copied with one scope copy per IR copy."""

    def inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs=None):
        global _SHARING
        callee_ir.__class__ = _SharedScopeIR
        for callee_block in callee_ir.blocks.values():
            if type(callee_block.scope) is ir.Scope:
                callee_block.scope.__class__ = _SharedScope
        _SHARING = True
        try:
            return super().inline_ir(caller_ir, block, i, callee_ir, callee_freevars,
                                     arg_typs=arg_typs)
        finally:
            _SHARING = False
            _SCOPE_COPIES.clear()


def replace_pass(pm, old: type, new: type):
    """``pm`` with the pass ``new`` wherever it ran ``old``."""
    pm.passes = [(new, why) if cls is old else (cls, why) for cls, why in pm.passes]
    return pm


def _sharing_scopes(pm):
    """``pm`` with ``InlineSharingScopes`` in place of numba's ``InlineInlinables``."""
    return replace_pass(pm, InlineInlinables, InlineSharingScopes)


def _untyped_pipeline(state, name: str = "untyped"):
    """numba's untyped pipeline with ``InlineSharingScopes`` for its inlining: the one the
    inliner runs on each callee before it inlines it."""
    return _sharing_scopes(DefaultPassBuilder.define_untyped_pipeline(state, name))


@register_pass(mutates_CFG=True, analysis_only=False)
class InlineSharingScopes(InlineInlinables):
    """numba's ``InlineInlinables`` with ``_SharingInliner`` (see above)."""

    _name = "sfb_inline_inlinables"

    def _do_work(self, state, work_list, block, i, expr, inline_worker):
        if type(inline_worker) is InlineWorker:  # (made by the pass for this function)
            inline_worker.__class__ = _SharingInliner
            inline_worker._compiler_pipeline = _untyped_pipeline
        return super()._do_work(state, work_list, block, i, expr, inline_worker)


# --- Constant arguments as plain values ---------------------------------------------------
# numba types a constant argument (a module constant, a literal) as a literal type and
# compiles the called kernel once per value: ``tractors.release`` six times (one per event
# code), ``apply_damage_a`` three. ``PlainConstantArguments`` passes such an argument through
# ``_plain`` (which returns it, typed as the plain int or bool), so each kernel is compiled
# once. A kernel that needed the literal (to index a tuple of mixed types, say) would fail to
# compile, loudly, not compute something else.


@intrinsic
def _plain(typingctx, value):
    """``value``, typed as its plain (non-literal) type."""
    plain = types.unliteral(value)

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], value, plain)

    return signature(plain, value), codegen


def _constant_value(func_ir, var: ir.Var):
    """The int or bool a variable holds as a constant (``ir.Const``, a global or free
    variable), or None."""
    try:
        definition = func_ir.get_definition(var)
    except Exception:  # (several definitions, or none)
        return None
    if isinstance(definition, (ir.Const, ir.Global, ir.FreeVar)):
        value = definition.value
        if isinstance(value, (bool, int)):
            return value
    return None


def _called_kernel(func_ir, func: ir.Var) -> bool:
    """Whether ``func`` names a jitted kernel (a global, or a module's attribute)."""
    try:
        definition = func_ir.get_definition(func)
    except Exception:
        return False
    if isinstance(definition, (ir.Global, ir.FreeVar)):
        value = definition.value
    elif isinstance(definition, ir.Expr) and definition.op == "getattr":
        try:
            module = func_ir.get_definition(definition.value)
        except Exception:
            return False
        if not isinstance(module, (ir.Global, ir.FreeVar)):
            return False
        value = getattr(module.value, definition.attr, None)
    else:
        return False
    return isinstance(value, Dispatcher)


@register_pass(mutates_CFG=False, analysis_only=False)
class PlainConstantArguments(FunctionPass):
    """Wrap each int or bool constant passed to a kernel in ``_plain`` (see above)."""

    _name = "sfb_plain_constant_arguments"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state) -> bool:
        func_ir = state.func_ir
        changed = False
        for block in func_ir.blocks.values():
            body = []
            for stmt in block.body:
                if (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr)
                        and stmt.value.op == "call" and _called_kernel(func_ir, stmt.value.func)):
                    call = stmt.value
                    args = list(call.args)
                    for k, arg in enumerate(args):
                        if _constant_value(func_ir, arg) is None:
                            continue
                        loc = stmt.loc
                        fn = ir.Var(block.scope, ir_utils.mk_unique_var("$plain_fn"), loc)
                        out = ir.Var(block.scope, ir_utils.mk_unique_var("$plain"), loc)
                        body.append(ir.Assign(ir.Global("_plain", _plain, loc), fn, loc))
                        body.append(ir.Assign(ir.Expr.call(fn, [arg], (), loc), out, loc))
                        args[k] = out
                        changed = True
                    call.args = args
                body.append(stmt)
            block.body = body
        if changed:
            func_ir._definitions = ir_utils.build_definitions(func_ir.blocks)
        return changed


# ---------------------------------------------------------------- lowering: one field a read
#
# numba keeps a variable used in more than one block in a stack slot and lowers ``s.field``
# as a load of the whole slot and an ``extractvalue``: for a ``BatchState`` or a
# ``StepTables`` a load of about a thousand words at every field read, which LLVM's SROA
# then splits word by word before it finds all but one dead. Without reference counting
# (``_nrt=False``, the hot kernels), numba also loads the whole slot before each store to it
# and at each ``del`` (to release the old value), and zero-fills it at the ``del``.
# ``FieldLoads`` loads the one field (a pointer into the slot: the same value) and, without
# reference counting, leaves out the loads and stores that only served the release.


class FieldLoads(lowering.Lower):
    """numba's lowering, reading a field of a namedtuple held in a stack slot from the slot
    (not the whole tuple) and, without reference counting, storing and deleting a variable
    without releasing its old value (see above)."""

    def _in_slot(self, name: str) -> bool:
        return (name not in self._blk_local_varmap
                and (self._disable_sroa_like_opt or name not in self._singly_assigned_vars))

    def lower_expr(self, resty, expr):
        if expr.op == "getattr":
            ty = self.typeof(expr.value.name)
            if (isinstance(ty, types.BaseNamedTuple) and expr.attr in ty.fields
                    and self._in_slot(expr.value.name)):
                index = ty.fields.index(expr.attr)
                slot = self.getvar(expr.value.name)
                value = self.builder.load(cgutils.gep_inbounds(self.builder, slot, 0, index))
                self.incref(ty[index], value)  # borrowed, as numba's namedtuple getattr
                return self.context.cast(self.builder, value, ty[index], resty)
        return super().lower_expr(resty, expr)

    def storevar(self, value, name, argidx=None) -> None:
        if self.context.enable_nrt or argidx is not None:
            return super().storevar(value, name, argidx)
        self._alloca_var(name, self.typeof(name))
        if name in self._singly_assigned_vars and not self._disable_sroa_like_opt:
            self._blk_local_varmap[name] = value
        else:
            self.builder.store(value, self.getvar(name))

    def delvar(self, name) -> None:
        if self.context.enable_nrt:
            return super().delvar(name)
        if name not in self._blk_local_varmap and not self._disable_sroa_like_opt:
            self._singly_assigned_vars.discard(name)  # as numba: a del before the store
        self._alloca_var(name, self.typeof(name))


def lowering_pass(lower_class: type, name: str) -> type:
    """numba's lowering pass, lowering with ``lower_class``: a pass registered as ``name``."""
    cls = type(name, (NativeLowering,), {
        "_name": name, "__doc__": f"numba's lowering pass with ``{lower_class.__name__}``.",
        "lowering_class": property(lambda self: lower_class)})
    return register_pass(mutates_CFG=True, analysis_only=False)(cls)


FieldLoadsLowering = lowering_pass(FieldLoads, "sfb_field_loads_lowering")


class KernelPipeline(CompilerBase):
    """numba's nopython pipeline, inlining with ``InlineSharingScopes``, then running
    ``ForwardCopies`` and ``PlainConstantArguments``, lowering with ``FieldLoads``."""

    def define_pipelines(self) -> list:
        pm = _sharing_scopes(DefaultPassBuilder.define_nopython_pipeline(self.state))
        replace_pass(pm, NativeLowering, FieldLoadsLowering)
        pm.add_pass_after(ForwardCopies, InlineSharingScopes)
        pm.add_pass_after(PlainConstantArguments, ForwardCopies)
        pm.finalize()
        return [pm]
