# SPDX-License-Identifier: BSD-3-Clause
"""What the Python calls accept as memory and as a stream, turned into integers for C.

Memory: an int (an address), or any object exposing __cuda_array_interface__ (gshmem's own
buffers, CuPy, Numba, torch tensors of the dtypes NumPy knows), or a torch-like tensor
(data_ptr() and nbytes; torch's CAI refuses bfloat16 and the float8 types). Streams: None, an
int (a cudaStream_t), an object with __cuda_stream__ (the CUDA stream protocol: a method, or
in older producers an attribute, giving (version, handle)), or one with an int `cuda_stream`
attribute (torch.cuda.Stream before it had __cuda_stream__)."""
from .errors import InvalidValueError


def address(call, arg, obj):
    """(address, nbytes or None) of `obj`; nbytes is None for a bare int."""
    if isinstance(obj, int):
        return obj, None
    data_ptr = getattr(obj, "data_ptr", None)
    # A torch tensor first: its __cuda_array_interface__ raises (KeyError, not AttributeError)
    # for float8, complex32 and float4, and refuses tensors that require grad.
    if callable(data_ptr) and hasattr(obj, "element_size"):
        if hasattr(obj, "is_contiguous") and not obj.is_contiguous():
            raise InvalidValueError(call, f"`{arg}` is not contiguous; pass .contiguous()")
        return data_ptr(), int(obj.nbytes)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return _from_cai(call, arg, cai)
    if callable(data_ptr):
        return data_ptr(), int(obj.nbytes)
    raise InvalidValueError(
        call, f"`{arg}` ({type(obj).__name__}) is not GPU memory: pass an int address, an object with "
        "__cuda_array_interface__ (a gshmem buffer, CuPy, Numba) or a torch tensor")


def _from_cai(call, arg, cai):
    ptr = cai["data"][0]
    shape = tuple(cai["shape"])
    itemsize = int(cai["typestr"][2:])
    count = 1
    for n in shape:
        count *= n
    strides = cai.get("strides")
    if strides is not None:
        expect = itemsize
        for n, s in zip(reversed(shape), reversed(strides)):
            if n > 1 and s != expect:
                raise InvalidValueError(call, f"`{arg}` is not C-contiguous (strides {strides}); "
                                        "pass a contiguous copy")
            expect *= n
    return ptr, count * itemsize


def nbytes_of(call, arg, size, *sized):
    """The byte count of a transfer: `size` if given, else the smaller of the sized operands."""
    if size is not None:
        if size < 0:
            raise InvalidValueError(call, f"`{arg}` is negative ({size})")
        return size
    known = [n for n in sized if n is not None]
    if not known:
        raise InvalidValueError(call, f"both operands are bare addresses: pass `{arg}`")
    return min(known)


def stream_handle(call, stream):
    """The cudaStream_t of `stream` as an int (None stays None: the caller picks the host form)."""
    if stream is None or isinstance(stream, int):
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        version_handle = proto() if callable(proto) else proto
        return int(version_handle[1])
    handle = getattr(stream, "cuda_stream", None)
    if isinstance(handle, int):
        return handle
    raise InvalidValueError(call, f"`stream` ({type(stream).__name__}) is not a CUDA stream: pass an int "
                            "cudaStream_t or an object with __cuda_stream__ (torch.cuda.Stream, cuda.core)")
