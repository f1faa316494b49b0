"""One handle to a batch's arrays, so a step call unboxes one word, not hundreds.

numba unboxes every array of every argument on each call from Python (about 40 ns an array):
a batch's step takes some 200 (the state, the start state, the static tables, the buffers),
which cost more than a whole battle-impulse at B=1. ``make(parts)`` writes the tuple of them,
once, in numba's own data layout (``Handle``: a buffer of the structs numba would pass, every
array's data pointer, shape and strides; nothing of the arrays is copied) and keeps the
arrays alive. A kernel takes the handle itself (typed ``PartsRef``: the buffer's address,
one word) and reads it back with ``deref``, every array borrowed (no reference counting:
the handle keeps the memory alive for the call). Whoever holds the handle must not replace
an array of the batch (writing into one is what kernels do).

The buffer is written in Python from numba's data model (the LLVM struct of the tuple's type
and its offsets in the target's data layout), not by a compiled function: numba's typed list
did it before, and compiling its ``append`` for a batch's tuple took some 80 s of a cold start.
"""

from __future__ import annotations

import struct

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.datamodel import models
from numba.core.registry import cpu_target
from numba.extending import NativeValue, intrinsic, register_model, typeof_impl, unbox


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


@unbox(PartsRef)
def _unbox_parts_ref(typ, obj, c):
    address = c.pyapi.object_getattr_string(obj, "address")
    pointer = c.pyapi.long_as_voidptr(address)
    c.pyapi.decref(address)
    ptr_type = c.context.data_model_manager[typ].get_value_type()
    return NativeValue(c.builder.bitcast(pointer, ptr_type))


@intrinsic
def deref(typingctx, ref):
    """The tuple ``ref`` points at, every array borrowed (meminfo and parent NULL)."""
    item_type = ref.item_type

    def codegen(context, builder, sig, args):
        item = context.data_model_manager[item_type].load_from_data_pointer(builder, args[0])
        return _without_owners(context, builder, item_type, item)

    return item_type(ref), codegen


@intrinsic
def pin(typingctx, value):
    """``value`` stored in a slot of the caller's frame, as a ``PartsRef`` (one word) that a
    callee ``deref``s. numba passes a tuple argument member by member: a call taking the
    views of some fifty arrays copies hundreds of words onto the stack at each call, and a
    kernel looping over battles pays that per battle (measured: a third of the play kernel's
    time). Pinned once before the loop, the arguments are stored once and each call passes
    one word; the callee loads only what it reads. The slot is the frame's own (an alloca in
    its entry block), refilled wherever ``pin`` runs: the ref is good until the function
    ``pin`` is inlined into returns; never return it, nor keep it past that."""
    def codegen(context, builder, sig, args):
        model = context.data_model_manager[value]
        slot = cgutils.alloca_once(builder, model.get_data_type())
        builder.store(model.as_data(builder, args[0]), slot)
        return slot

    return PartsRef(value)(value), codegen


@intrinsic
def member(typingctx, ref, index):
    """A ``PartsRef`` to member ``index`` (a literal) of the tuple ``ref`` points at: its
    address inside the same buffer, nothing loaded or copied (a batch's handle of pinned
    arguments, ``procedure.held_calls``)."""
    if not isinstance(index, types.IntegerLiteral):
        return None
    i = index.literal_value
    item = ref.item_type.types[i]

    def codegen(context, builder, sig, args):
        zero = context.get_constant(types.int32, 0)
        at = context.get_constant(types.int32, i)
        return builder.gep(args[0], [zero, at], inbounds=True)

    return PartsRef(item)(ref, index), codegen


class Handle:
    """``parts`` (a tuple of arrays, namedtuples of arrays and scalars) written in numba's
    data layout for its type (``item_type``), at ``address``; holds the arrays. Passed to a
    kernel, it is a ``PartsRef`` (the address, one word)."""

    def __init__(self, parts: tuple) -> None:
        self.parts = parts
        self.item_type = nb.typeof(parts)
        data_type = _data_type(self.item_type)
        size, _ = _size_align(data_type)
        self.buffer = np.zeros(-(-size // 8), np.uint64)  # 8-byte aligned
        _write(memoryview(self.buffer).cast("B"), 0, self.item_type, parts, data_type,
               cpu_target.target_context)
        self.address = self.buffer.ctypes.data


@typeof_impl.register(Handle)
def _typeof_handle(value, context):
    """A handle passed to a kernel is the address of its tuple (``PartsRef``)."""
    return PartsRef(value.item_type)


def make(parts: tuple) -> Handle:
    """A handle holding ``parts`` (see ``Handle``)."""
    return Handle(parts)


# A batch's handles share one type: its LLVM type and layout are worked out once (the
# layout's walk over some 900 members cost more than the rest of a handle).
_DATA_TYPES: dict = {}  # numba type -> LLVM data type (its size checked against LLVM's)
_LAYOUTS: dict[tuple[str, int], tuple] = {}  # (what, id of an LLVM type) -> (the type, it)


def _data_type(item_type):
    """The LLVM type of numba's data model for ``item_type``, checked once to be laid out as
    ``_size_align`` lays it out."""
    found = _DATA_TYPES.get(item_type)
    if found is None:
        context = cpu_target.target_context
        found = context.data_model_manager[item_type].get_data_type()
        if _size_align(found)[0] != found.get_abi_size(context.target_data):  # LLVM's own
            raise TypeError(f"handle: the layout of {item_type} is not C's")
        _DATA_TYPES[item_type] = found
    return found


def _memo(what: str, data_type, work):
    """``work(data_type)``, once per LLVM type object (kept, so its id stays its own)."""
    key = (what, id(data_type))
    found = _LAYOUTS.get(key)
    if found is None:
        found = _LAYOUTS[key] = (data_type, work(data_type))
    return found[1]


def _size_align(data_type) -> tuple[int, int]:
    """The size and alignment of an LLVM type of numba's data model, by C's layout rules
    (the target's: LLVM's ``get_element_offset`` parses the whole type anew at each call)."""
    return _memo("size", data_type, _size_align_of)


def _size_align_of(data_type) -> tuple[int, int]:
    if isinstance(data_type, ir.IntType):
        size = max(1, data_type.width // 8)
        return size, size
    if isinstance(data_type, ir.PointerType | ir.DoubleType):
        return 8, 8
    if isinstance(data_type, ir.FloatType):
        return 4, 4
    if isinstance(data_type, ir.ArrayType):
        size, align = _size_align(data_type.element)
        return size * data_type.count, align
    if isinstance(data_type, ir.LiteralStructType) and not data_type.packed:
        offsets, align = _offsets(data_type)
        end = offsets[-1] + _size_align(data_type.elements[-1])[0] if offsets else 0
        return -(-end // align) * align, align
    raise TypeError(f"handle: no layout for the LLVM type {data_type}")


def _offsets(data_type) -> tuple[list[int], int]:
    """The offsets of a struct's members, and its alignment."""
    return _memo("offsets", data_type, _offsets_of)


def _offsets_of(data_type) -> tuple[list[int], int]:
    offsets, at, align = [], 0, 1
    for element in data_type.elements:
        size, member_align = _size_align(element)
        at = -(-at // member_align) * member_align
        offsets.append(at)
        at += size
        align = max(align, member_align)
    return offsets, align


def _write(view, offset: int, ty, value, data_type, context) -> None:
    """Write ``value`` of numba type ``ty`` at ``offset`` as its data representation
    (``data_type``, an LLVM type of numba's data model)."""
    if isinstance(ty, types.Array):
        fields = {"meminfo": 0, "parent": 0, "nitems": value.size, "itemsize": value.itemsize,
                  "data": value.ctypes.data, "shape": value.shape, "strides": value.strides}
        offsets, _ = _offsets(data_type)
        for name, at in zip(context.data_model_manager[ty]._fields, offsets, strict=True):
            words = fields[name] if isinstance(fields[name], tuple) else (fields[name],)
            struct.pack_into(f"<{len(words)}q", view, offset + at, *words)
    elif isinstance(ty, types.BaseTuple):  # a struct, or an LLVM array for a UniTuple
        if isinstance(data_type, ir.ArrayType):
            step = _size_align(data_type.element)[0]
            places = [(i * step, data_type.element) for i in range(len(ty.types))]
        else:
            places = list(zip(_offsets(data_type)[0], data_type.elements, strict=True))
        for member, item, (at, member_type) in zip(ty.types, value, places, strict=True):
            _write(view, offset + at, member, item, member_type, context)
    elif isinstance(ty, types.Float):
        struct.pack_into({32: "<f", 64: "<d"}[ty.bitwidth], view, offset, value)
    elif isinstance(ty, types.Boolean):  # an i8 in numba's data model
        struct.pack_into("<B", view, offset, bool(value))
    elif isinstance(ty, types.Integer):
        code = {8: "b", 16: "h", 32: "i", 64: "q"}[ty.bitwidth]
        struct.pack_into("<" + (code if ty.signed else code.upper()), view, offset, int(value))
    else:
        raise TypeError(f"handle: cannot hold a value of type {ty} ({type(value).__name__})")


def compiled_entry(dispatcher, args: tuple):
    """The compiled entry point of ``dispatcher`` for ``args``' types, once it has been called
    with them (a caller whose argument types never change keeps it: calling it skips numba's
    type dispatch, some 25 us for the step's handle)."""
    return dispatcher.python_entry(tuple(dispatcher.typeof_pyval(a) for a in args))
