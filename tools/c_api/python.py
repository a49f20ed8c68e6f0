# SPDX-License-Identifier: BSD-3-Clause
"""ctypes prototypes of every exported C name, for the Python package (python/src/gshmem/).

Not an API family (gen_c_api.py skips this module when collecting families); gen_c_api.render()
calls render(api, root) and writes what it returns:

  python/src/gshmem/_capi.py   PROTOTYPES: C name -> (restype, argtypes), for every host
                               symbol of the table and every GSHMEM_API function of host.h;
                               the integer constants of types.h (status codes, CMP, SIGNAL,
                               teams, thread levels ...)

The prototypes are parsed from the same prototype strings the C headers are written from, so a
name added to a table reaches Python with the next generator run, and `gen_c_api.py --check`
(ctest c_api_generated_is_current) fails while the Python file is stale. Device-only names
(_warp, _block) are not library symbols and are left out.

How C types become ctypes (C_TYPES): by value, each type its exact ctypes equivalent; every
pointer is c_void_p (the binding passes device and host addresses as integers), except that a
returned `const char*` is c_char_p (bytes). CUDA's __half and __nv_bfloat16 are a 16-bit struct
passed like an unsigned short on x86-64 and aarch64, so they are c_uint16 (the value's bits).
"""
import re

OUT = "python/src/gshmem/_capi.py"

# C type (after dropping const/struct and the parameter name) -> ctypes expression.
C_TYPES = {
    "void": "None",
    "char": "c_byte",  # signed on the targets gshmem builds for; an int, not a 1-byte bytes
    "signed char": "c_byte",
    "unsigned char": "c_ubyte",
    "short": "c_short",
    "unsigned short": "c_ushort",
    "int": "c_int",
    "unsigned int": "c_uint",
    "long": "c_long",
    "unsigned long": "c_ulong",
    "long long": "c_longlong",
    "unsigned long long": "c_ulonglong",
    "float": "c_float",
    "double": "c_double",
    "long double": "c_longdouble",
    "int8_t": "c_int8",
    "int16_t": "c_int16",
    "int32_t": "c_int32",
    "int64_t": "c_int64",
    "uint8_t": "c_uint8",
    "uint16_t": "c_uint16",
    "uint32_t": "c_uint32",
    "uint64_t": "c_uint64",
    "size_t": "c_size_t",
    "ptrdiff_t": "c_ssize_t",  # the same type as ssize_t on LP64 Linux
    "gshmem_team_t": "c_int",
    "cudaStream_t": "c_void_p",
    "__half": "c_uint16",
    "__nv_bfloat16": "c_uint16",
    "dim3": "dim3",  # by value: the Structure defined in the generated file
}
POINTER = "c_void_p"

_SPACES = re.compile(r"\s+")
_QUALIFIERS = re.compile(r"\b(const|struct|volatile)\b")
# Hand-declared exported functions of host.h: "GSHMEM_API <ret> <name>(<params>);"
_HOST_DECL = re.compile(r"GSHMEM_API\s+([^;{]*?)\b(gshmemx?_\w+|gshmemi_\w+)\s*\(([^)]*)\)\s*;", re.S)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE = re.compile(r"^#define\s+(GSHMEMX?_[A-Z0-9_]+)\s+\(?(-?\d+)u?L?(?:\s*<<\s*(\d+)\))?\)?\s*(?:/\*.*)?$", re.M)
_ENUM_VALUE = re.compile(r"^\s*(GSHMEM_[A-Z0-9_]+)\s*=\s*(\d+)\s*,?", re.M)


def ctype_of(ctype, returned=False):
    """The ctypes expression of one C type (a parameter with its name dropped, or a return type)."""
    t = _SPACES.sub(" ", _QUALIFIERS.sub("", ctype)).strip()
    if "*" in t:
        return "c_char_p" if returned and t.replace(" ", "") == "char*" else POINTER
    if t not in C_TYPES:
        raise ValueError(f"tools/c_api/python.py: no ctypes mapping for C type {ctype!r}: add it to C_TYPES")
    return C_TYPES[t]


_TYPE_WORDS = {"void", "char", "short", "int", "long", "float", "double", "unsigned", "signed"}


def split_param(param):
    """'const int* status' -> 'const int*' (the type without the parameter's name, if it has one)."""
    p = param.strip()
    m = re.match(r"^(.*?[\s*])([A-Za-z_]\w*)$", p)
    if not m or m.group(2) in _TYPE_WORDS:
        return p  # a type alone ("unsigned int")
    return m.group(1)


def parse(proto):
    """'int gshmem_x(int a, void* b)' -> (name, restype, [argtypes])."""
    m = re.match(r"^\s*(.*?)\b(\w+)\s*\((.*)\)\s*$", proto, re.S)
    if not m:
        raise ValueError(f"not a prototype: {proto!r}")
    ret, name, params = m.groups()
    params = params.strip()
    args = [] if params in ("", "void") else [ctype_of(split_param(p)) for p in params.split(",")]
    return name, ctype_of(ret, returned=True), args


def host_h_prototypes(root):
    """(family, prototype) of every GSHMEM_API function declared in include/gshmem/host.h."""
    text = _COMMENT.sub("", (root / "include/gshmem/host.h").read_text())
    return [("host.h", f"{ret.strip()} {name}({_SPACES.sub(' ', params).strip()})")
            for ret, name, params in _HOST_DECL.findall(text)]


def table_prototypes(api):
    """(family, prototype) of every C symbol of the table, in table order."""
    return [(fam, proto) for fam, decls, _, _ in api.family_slices() for proto, _, _ in decls]


def constants(root):
    """(name, value) of the integer constants of include/gshmem/types.h, in file order."""
    text = (root / "include/gshmem/types.h").read_text()
    found = []
    for m in _ENUM_VALUE.finditer(text):
        found.append((m.start(), m.group(1), int(m.group(2))))
    for m in _DEFINE.finditer(text):
        value = int(m.group(2)) << int(m.group(3) or 0)
        found.append((m.start(), m.group(1), value))
    return [(name, value) for _, name, value in sorted(found)]


def render(api, root, note):
    protos = table_prototypes(api) + host_h_prototypes(root)
    lines = [
        "# SPDX-License-Identifier: BSD-3-Clause",
        f"# {note}",
        '"""ctypes prototypes of libgshmem\'s C API, and the integer constants of gshmem/types.h.',
        "",
        "PROTOTYPES[name] = (restype, argtypes). Written by tools/gen_c_api.py from the tables",
        "(tools/c_api/) and include/gshmem/host.h; every pointer is c_void_p. See",
        'tools/c_api/python.py for the type mapping."""',
        "from ctypes import (Structure, c_byte, c_char_p, c_double, c_float, c_int, c_int8, c_int16, c_int32,",
        "                    c_int64, c_long, c_longdouble, c_longlong, c_short, c_size_t, c_ssize_t, c_ubyte,",
        "                    c_uint, c_uint8, c_uint16, c_uint32, c_uint64, c_ulong, c_ulonglong, c_ushort,",
        "                    c_void_p)",
        "",
        "",
        "class dim3(Structure):  # CUDA's dim3, passed by value (gshmemx_collective_launch)",
        '    _fields_ = [("x", c_uint), ("y", c_uint), ("z", c_uint)]',
        "",
        "",
    ]
    for name, value in constants(root):
        lines.append(f"{name} = {value}")
    lines += ["", "PROTOTYPES = {"]
    seen, family = set(), None
    for fam, proto in protos:
        name, ret, args = parse(proto)
        if name in seen:
            continue
        seen.add(name)
        if fam != family:
            family = fam
            where = "include/gshmem/host.h" if fam == "host.h" else f"tools/c_api/{fam}.py"
            lines.append(f"    # ---- {where}")
        argtuple = "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"
        lines.append(f'    "{name}": ({ret}, {argtuple}),')
    lines += ["}", ""]
    return {root / OUT: "\n".join(lines)}
