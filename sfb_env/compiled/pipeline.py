"""The compiler pipeline of the compiled core's kernels: numba's own, plus one pass.

numba inlines an ``inline="always"`` function by copying its body into the caller, with one
assignment per parameter (``param = argument``). A parameter that is one of the core's
namedtuples (``BatchState``: some 120 arrays, about 1,500 machine words) becomes a new
variable: a stack slot the size of the whole namedtuple, stored once and loaded at every use.
LLVM's SROA pass then splits every such slot back into its words, at about 0.15 s of compile
time per inlined call: SROA was 288 of the 308 s of LLVM function passes on the body of
``batch._step_batch`` (this project's machine, session 14).

``ForwardCopies`` runs right after numba's inlining and forwards those copies: where a
variable is assigned once from another variable whose one assignment is outside every loop
(so it never changes once set), every use of the copy reads the original instead. The program
is the same (the two names always hold the same value); the stack slots and the work SROA did
on them are gone. ``KernelPipeline`` is numba's nopython pipeline with that pass added; the
kernels name it (``@nb.njit(..., pipeline_class=KernelPipeline)``).
"""

from __future__ import annotations

from numba.core import ir, ir_utils
from numba.core.analysis import compute_cfg_from_blocks
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.untyped_passes import InlineInlinables


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


class KernelPipeline(CompilerBase):
    """numba's nopython pipeline, with ``ForwardCopies`` after its inlining."""

    def define_pipelines(self) -> list:
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.add_pass_after(ForwardCopies, InlineInlinables)
        pm.finalize()
        return [pm]
