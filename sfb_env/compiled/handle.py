"""One boxed handle to a batch's arrays, so a step call unboxes one object, not hundreds.

numba unboxes every array of every argument on each call from Python (about 40 ns an array):
a batch's step takes some 200 (the state, the start state, the static tables, the buffers),
which cost more than a whole battle-impulse at B=1. ``make(parts)`` puts the tuple of them, once,
in a numba typed list (its arrays keep pointing at the batch's numpy buffers: nothing is
copied). A kernel takes the address of that tuple (``PartsAddress``, one word) and reads it
back with ``deref``, every array borrowed (no reference counting: the list keeps the memory
alive for the call). Whoever holds the handle must not replace an
array of the batch (writing into one is what kernels do).
"""

from __future__ import annotations

import numba as nb
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.datamodel import models
from numba.extending import NativeValue, intrinsic, register_model, typeof_impl, unbox
from numba.typed import List
from numba.typed.listobject import _container_get_data, ll_list_type, ll_voidptr_type

from sfb_env.compiled.dispatch import kernel


def _without_owners(context, builder, ty, value):
    """``value`` of type ``ty`` with every array's meminfo and parent NULL (nested tuples)."""
    if isinstance(ty, types.Array):
        array = context.make_array(ty)(context, builder, value=value)
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        array.parent = cgutils.get_null_value(array.parent.type)
        return array._getvalue()
    if isinstance(ty, types.BaseTuple):
        for i, member in enumerate(ty.types):
            item = _without_owners(context, builder, member, builder.extract_value(value, i))
            value = builder.insert_value(value, item, i)
    return value


class PartsRef(types.Type):
    """A raw pointer to the tuple a handle holds: one machine word, which a kernel compiled
    without reference counting (``_nrt=False``) may take from Python, and ``deref``."""

    def __init__(self, item_type) -> None:
        self.item_type = item_type
        super().__init__(name=f"PartsRef({item_type})")


@register_model(PartsRef)
class _PartsRefModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type) -> None:
        super().__init__(dmm, fe_type, dmm.lookup(fe_type.item_type).get_data_type().as_pointer())


class PartsAddress:
    """The address of the tuple held by a handle, as a kernel argument (a ``PartsRef``): valid
    while the handle lives; keeps it alive."""

    def __init__(self, handle) -> None:
        self.handle = handle
        self.item_type = nb.typeof(handle).item_type
        self.address = _address(handle)


@typeof_impl.register(PartsAddress)
def _typeof_parts_address(value, context):
    return PartsRef(value.item_type)


@unbox(PartsRef)
def _unbox_parts_ref(typ, obj, c):
    address = c.pyapi.object_getattr_string(obj, "address")
    pointer = c.pyapi.long_as_voidptr(address)
    c.pyapi.decref(address)
    ptr_type = c.context.data_model_manager[typ].get_value_type()
    return NativeValue(c.builder.bitcast(pointer, ptr_type))


@intrinsic
def _parts_pointer(typingctx, handle):
    """The address of the tuple held by ``handle``, as an integer."""

    def codegen(context, builder, sig, args):
        fnty = ir.FunctionType(ll_voidptr_type, [ll_list_type])
        base_ptr = cgutils.get_or_insert_function(builder.module, fnty, "numba_list_base_ptr")
        data = _container_get_data(context, builder, sig.args[0], args[0])
        return builder.ptrtoint(builder.call(base_ptr, [data]), ir.IntType(64))

    return types.int64(handle), codegen


@kernel()
def _address(handle):
    return _parts_pointer(handle)


@intrinsic
def deref(typingctx, ref):
    """The tuple ``ref`` points at, every array borrowed (meminfo and parent NULL)."""
    item_type = ref.item_type

    def codegen(context, builder, sig, args):
        item = context.data_model_manager[item_type].load_from_data_pointer(builder, args[0])
        return _without_owners(context, builder, item_type, item)

    return item_type(ref), codegen


@kernel(python_entry=True)  # (its entry point unboxes every array of a batch)
def make(parts):
    """A handle holding ``parts`` (a tuple of arrays, namedtuples of arrays and scalars)."""
    handle = List()
    handle.append(parts)
    return handle


def compiled_entry(dispatcher, args: tuple):
    """The compiled entry point of ``dispatcher`` for ``args``' types, once it has been called
    with them (a caller whose argument types never change keeps it: calling it skips numba's
    type dispatch, some 25 us for the step's handle)."""
    return dispatcher.python_entry(tuple(dispatcher.typeof_pyval(a) for a in args))
