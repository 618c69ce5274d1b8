"""Fixing an ONNX network's input size in its file, for OpenCV 4's dnn importer.

The project's detectors take frames of any size (their input's height and width are named,
not numbered, in the file), which ONNX Runtime and OpenCV 5 read as they are. OpenCV 4 (4.9
to 4.12 tried) works out every layer's shape as it imports a file, cannot with the size left
open, and refuses the detectors' feature pyramid; given the size, it reads and runs them.
`vision.onnx_net` reads a net for each input size anyway on OpenCV, so there it passes
each one a copy of the file with that size written in.

The rewrite is done on the protobuf encoding itself (a few nested length-delimited fields),
because neither the ``onnx`` package nor ``protobuf`` is a dependency, and on 32-bit ARM,
where OpenCV runs the networks, ONNX Runtime (which brings protobuf) has no wheel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# field numbers on the path ModelProto.graph -> GraphProto.input[0] -> ValueInfoProto.type ->
# TypeProto.tensor_type -> TypeProto.Tensor.shape -> TensorShapeProto.dim
_GRAPH, _INPUT, _TYPE, _TENSOR_TYPE, _SHAPE, _DIM = 7, 11, 2, 1, 2, 1
_DIM_VALUE = 1
_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5

Field = tuple[int, int, bytes | int]


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _fields(data: bytes) -> list[Field]:
    """The top-level fields of one protobuf message: (number, wire type, payload)."""
    out: list[Field] = []
    at = 0
    while at < len(data):
        key, at = _read_varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, at = _read_varint(data, at)
            out.append((number, wire, value))
        elif wire == _BYTES:
            size, at = _read_varint(data, at)
            out.append((number, wire, data[at:at + size]))
            at += size
        elif wire in (_FIXED64, _FIXED32):
            size = 8 if wire == _FIXED64 else 4
            out.append((number, wire, data[at:at + size]))
            at += size
        else:
            raise ValueError(f"not an ONNX file: protobuf wire type {wire} at byte {at}")
    return out


def _encode(fields: Sequence[Field]) -> bytes:
    out = bytearray()
    for number, wire, payload in fields:
        out += _varint(number << 3 | wire)
        if wire == _VARINT:
            assert isinstance(payload, int)
            out += _varint(payload)
        else:
            assert isinstance(payload, bytes)
            out += (_varint(len(payload)) if wire == _BYTES else b"") + payload
    return bytes(out)


def _rewrite(data: bytes, path: Sequence[int], change: Callable[[bytes], bytes]) -> bytes:
    """``data`` with the first field numbered ``path[0]`` (then ``path[1]`` inside it, …)
    replaced by ``change(payload)``."""
    fields = _fields(data)
    for index, (number, wire, payload) in enumerate(fields):
        if number == path[0] and wire == _BYTES:
            assert isinstance(payload, bytes)
            new = change(payload) if len(path) == 1 else _rewrite(payload, path[1:], change)
            fields[index] = (number, wire, new)
            return _encode(fields)
    raise ValueError(f"not an ONNX network with a shaped input (no field {path[0]})")


def with_input_size(model: bytes, height: int, width: int) -> bytes:
    """The ONNX ``model`` with its (first) input's last two dimensions, where they are named
    (open), set to ``height`` and ``width``; everything else byte for byte as it was."""

    def set_dims(shape: bytes) -> bytes:
        fields = _fields(shape)
        dims = [i for i, (number, _, _) in enumerate(fields) if number == _DIM]
        if len(dims) < 2:
            raise ValueError("the network's input has fewer than two dimensions")
        for index, size in zip(dims[-2:], (height, width), strict=True):
            payload = fields[index][2]
            assert isinstance(payload, bytes)
            if any(number == _DIM_VALUE for number, _, _ in _fields(payload)):
                continue  # a numbered dimension (a classifier's 48 px) stays as it is
            fields[index] = (_DIM, _BYTES, _encode([(_DIM_VALUE, _VARINT, size)]))
        return _encode(fields)

    return _rewrite(model, (_GRAPH, _INPUT, _TYPE, _TENSOR_TYPE, _SHAPE), set_dims)
