"""The kernels' decorator: compiled through ``KernelPipeline``, cached, and without Python
entry points until Python calls them.

For every function it compiles, numba also builds two wrappers: a Python entry point, which
unboxes each argument (for a function taking ``BatchState`` and ``StepTables``, well over a
thousand arrays) and boxes the result, and a C entry point. It lowers them, optimizes them
and generates their machine code with the function. A kernel called only by another kernel
never uses either: the caller links in the callee's code and calls it directly. Most of the
core's ~200 separately compiled functions are such callees; their wrappers were about half the
cold compile of the play kernel (405 s -> 218 s CPU without them, session 21).

``kernel(**options)`` is ``numba.njit(cache=True, pipeline_class=KernelPipeline, **options)``
with both wrappers left out. A call from Python (the batch calling its kernels, a test calling
one rule's function) finds no entry point in numba's dispatch table and asks the dispatcher to
compile; ``KernelDispatcher`` then builds the Python entry point alone, once per process and
signature, in a library of its own that calls the compiled function by its symbol (nothing of
the function is compiled again; the wrapper's machine code is cached beside the function's),
and puts it in the dispatch table, so later calls take it directly. The C entry point
(``cfunc`` addresses, first-class function values) is never built: nothing here uses it.
"""

from __future__ import annotations

import contextlib
import copy

from numba.core import config, sigutils
from numba.core.caching import Cache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher

from sfb_env.compiled.pipeline import KernelPipeline


class KernelDispatcher(CPUDispatcher):
    """numba's CPU dispatcher, making an overload's Python entry point at its first call
    from Python (see the module docstring)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._python_entries: dict[tuple, object] = {}

    def add_overload(self, cres) -> None:
        # for callers' typing and linking (numba's lowering finds the function by the
        # overload's own entry point, a null one here); not in the dispatch table yet
        self.overloads[tuple(cres.signature.args)] = cres

    def compile(self, sig):
        """numba's ``compile``; returns the Python entry point, or what makes it when called
        (numba's dispatch calls what ``compile`` returns, with the call's arguments)."""
        with global_compiler_lock:
            super().compile(sig)
            args, _ = sigutils.normalize_signature(sig)
            args = tuple(args)
            return self._python_entries.get(args) or _LazyEntry(self, args)

    def python_entry(self, args: tuple):
        """The Python entry point of the overload for ``args`` (numba types), made and put in
        the dispatch table on first use."""
        with global_compiler_lock:
            entry = self._python_entries.get(args)
            if entry is None:
                cres = self.overloads[args]
                entry = python_wrapper(cres, self.targetoptions.get("_nrt", True),
                                       self._cache if isinstance(self._cache, Cache) else None)
                self._insert([a._code for a in args], entry, cres.objectmode)
                self._python_entries[args] = entry
            return entry


class _LazyEntry:
    """What ``KernelDispatcher.compile`` returns for an overload without its Python entry
    point: numba's dispatch calls it with the call's arguments; it makes the entry point,
    then calls that."""

    def __init__(self, dispatcher: KernelDispatcher, args: tuple) -> None:
        self._dispatcher = dispatcher
        self._args = args

    def __call__(self, *args, **kws):
        return self._dispatcher.python_entry(self._args)(*args, **kws)


def python_wrapper(cres, nrt: bool, cache: Cache | None = None):
    """numba's Python entry point for the compiled function of ``cres``, in a new library
    that declares the function and leaves its address to the JIT linker (the function's
    own library, compiled or loaded from the cache, defines it). The wrapper reads its own
    copy of the function's environment pointer (numba names it after the function: the
    copy gets a name of its own, so two definitions never share a symbol). ``nrt``: as the
    function was compiled (a cached overload's context does not say; a typed list argument
    needs reference counting to unbox). ``cache``: the function's numba cache, where the
    wrapper's machine code is kept beside the function's (its index entry is dropped with
    theirs when the source changes), so the next process loads it."""
    context = cres.target_context.subtarget(enable_nrt=nrt)
    fndesc = copy.copy(cres.fndesc)
    fndesc.env_name = f"{cres.fndesc.env_name}.entry"
    codegen = context.codegen()
    # keyed by the function's symbol too: numba's names carry a number given per process, so
    # a function compiled afresh (not loaded) has other names than a cached wrapper calls
    key = None if cache is None else (
        "python entry", cres.fndesc.mangled_name,
        cache._index_key(cres.signature.args, codegen))
    saved = None if key is None else cache._cache_file.load(key)
    # (two processes saving to one numba index at once may leave a key naming another's data
    # file: the data names the wrapper it holds, and is used only if that is this one)
    state = saved[1] if isinstance(saved, tuple) and saved[0] == key else None
    library = None if state is None else _cached_library(codegen, state, fndesc)
    if library is None:
        state = None
        library = codegen.create_library(f"{fndesc.qualname}.entry")
        library.enable_object_caching()
        context.create_cpython_wrapper(library, fndesc, cres.environment, cres.call_helper)
    entry = context.get_executable(library, fndesc, cres.environment)
    if state is None and key is not None:
        # (numba's own saves shrug off a read-only or vanished cache folder too)
        with contextlib.suppress(OSError):
            cache._cache_file.save(key, (key, library.serialize_using_object_code()))
    return entry


def _cached_library(codegen, state, fndesc):
    """The wrapper's library from its cached ``state``, or None if it does not define the
    wrapper and its environment pointer."""
    try:
        library = codegen.unserialize_library(state)
    except Exception:  # (what the file holds is not a library's state)
        return None
    if (library.get_pointer_to_function(fndesc.llvm_cpython_wrapper_name)
            and codegen._engine.get_global_value_address(fndesc.env_name)):
        return library
    return None


def kernel(**options):
    """``numba.njit(cache=True, pipeline_class=KernelPipeline, **options)``, without the
    wrappers a callee never uses (``KernelDispatcher`` makes the Python one on demand)."""
    targetoptions = {"nopython": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True,
                     **options}

    def wrap(func):
        if config.DISABLE_JIT:
            return func
        dispatcher = KernelDispatcher(py_func=func, locals={}, targetoptions=targetoptions,
                                      pipeline_class=KernelPipeline)
        dispatcher.enable_caching()
        return dispatcher

    return wrap
