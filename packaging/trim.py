"""Making the frozen bundle smaller without losing what Accord uses (issue 18: < 250 MB).

packaging/accord.spec loads this file by its path (a module named ``packaging`` would be
the PyPI package of that name). Three steps, each measured in the spec's header comment:

- :func:`orphans`: the system libraries that only the binaries the spec leaves out
  needed. PyInstaller collects each binary's dependencies during the analysis, before
  the spec drops a Qt plugin, so the GTK theme's cairo, pango and GIO, or Qt Network's
  Kerberos stayed in the bundle although nothing left loads them.
- :func:`link_duplicates`: numpy's and scipy's wheels each vendor libgfortran and
  libquadmath (one pair byte for byte the same, scipy's own libgfortran the same ABI and
  symbols); each repeat becomes a symbolic link to numpy's copy (the loader then maps
  one file).
- :func:`trim_icu`: ICU's data library (31 MB) holds every ICU service; Qt Core calls only
  collation (``ucol_*``, QCollator: the file dialogs sort with it), code page conversion
  (``ucnv_*``), time zone names (``ucal_*``) and case mapping, so the data of the services
  Qt never calls (break iteration and its dictionaries, transliteration, number spelling,
  the display names of currencies, languages, regions and units (Qt's time zone names
  are the specific ones, which need no region names), character names, string
  preparation, confusables) and the code page tables (:data:`ICU_UNUSED`) are left out
  of a rebuilt ``libicudata`` (binutils' ``as`` and ``ld``). packaging/icu_check.py shows
  collation, case mapping and time zone names unchanged.

Only the ELF steps run on Linux; elsewhere these functions find nothing to do.
"""

from __future__ import annotations

import filecmp
import os
import struct
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

PT_LOAD, PT_DYNAMIC, DT_NEEDED, DT_STRTAB = 1, 2, 1, 5


def elf_needed(data: bytes) -> list[str]:
    """The DT_NEEDED names of a 64-bit little-endian ELF file (``[]`` for anything else)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    size, count = struct.unpack_from("<HH", data, 0x36)
    dynamic: tuple[int, int] | None = None
    for k in range(count):
        kind, _flags, offset, _address, _p, filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + k * size)
        if kind == PT_DYNAMIC:
            dynamic = (offset, filesz)
    if dynamic is None:
        return []

    entries = [struct.unpack_from("<qQ", data, dynamic[0] + 16 * i)
               for i in range(dynamic[1] // 16)]
    strtab = next((value for tag, value in entries if tag == DT_STRTAB), None)
    if strtab is None:
        return []
    table = _file_offset(data, strtab)
    names = []
    for tag, value in entries:
        if tag == 0:
            break
        if tag == DT_NEEDED:
            start = table + value
            names.append(data[start:data.index(b"\0", start)].decode())
    return names


def orphans(binaries: Iterable[tuple[str, str, str]], removed: Iterable[tuple[str, str, str]]
            ) -> set[str]:
    """Destinations of the collected libraries that only ``removed`` binaries need:
    reached through DT_NEEDED from a removed binary and from no kept one. A library that
    nothing needs by name (one loaded with dlopen or ctypes) is never an orphan."""
    kept = {dest: src for dest, src, _kind in binaries}
    gone = {dest: src for dest, src, _kind in removed}
    by_name: dict[str, list[str]] = {}
    for dest in (*kept, *gone):
        by_name.setdefault(Path(dest).name, []).append(dest)
    sources = {**kept, **gone}
    cache: dict[str, list[str]] = {}

    def deps(dest: str) -> list[str]:
        if dest not in cache:
            data = Path(sources[dest]).read_bytes()
            cache[dest] = [d for name in elf_needed(data) for d in by_name.get(name, [])]
        return cache[dest]

    def reach(roots: Iterable[str]) -> set[str]:
        seen: set[str] = set()
        stack = list(roots)
        while stack:
            dest = stack.pop()
            if dest not in seen:
                seen.add(dest)
                stack.extend(deps(dest))
        return seen

    candidates = reach(gone) - set(gone)
    return candidates - reach(dest for dest in kept if dest not in candidates)


def link_duplicates(folder: Path) -> int:
    """Replace the vendored wheel libraries (``*.libs`` folders, auditwheel's names:
    ``libgfortran-<hash>.so.5.0.0``) that repeat another with a relative symbolic link to
    it; returns the bytes saved. A repeat is the same name and the same bytes, or the same
    library and ABI (name before the hash, ``.so.N``) under another hash that exports the
    very same versioned symbols (numpy's and scipy's libgfortran: GFORTRAN_8, 1,363
    symbols each). A library that only the replaced one needed is then removed."""
    first: dict[str, Path] = {}
    saved = 0
    for path in sorted(folder.glob("*.libs/*")):
        if path.is_symlink() or not path.is_file():
            continue
        original = first.setdefault(path.name, path)
        if original is not path and filecmp.cmp(original, path, shallow=False):
            saved += _link(path, original)
    by_abi: dict[tuple[str, str], Path] = {}
    for path in sorted(folder.glob("*.libs/*")):
        if path.is_symlink() or not path.is_file() or "-" not in path.name:
            continue
        key = (path.name.split("-")[0], ".so." + path.name.split(".so.")[-1].split(".")[0])
        other = by_abi.setdefault(key, path)
        if other is not path and other.parent != path.parent and _exports(other) == _exports(path):
            needed = set(elf_needed(path.read_bytes())) - set(elf_needed(other.read_bytes()))
            saved += _link(path, other)
            for name in needed:  # e.g. the libquadmath only the replaced libgfortran loaded
                lonely = path.parent / name
                if lonely.is_file() and not lonely.is_symlink() and not _needed_in(folder, name):
                    saved += lonely.stat().st_size
                    lonely.unlink()
    return saved


def remove_dangling(folder: Path) -> list[str]:
    """Remove the symbolic links under ``folder`` whose target is gone (PyInstaller links
    ``_internal/libQt6Quick.so.6`` to the Qt folder's copy even when the spec left that
    copy out; :func:`link_duplicates` removes an unneeded libquadmath); their names."""
    dangling = [p for p in folder.rglob("*") if p.is_symlink() and not p.exists()]
    for path in dangling:
        path.unlink()
    return sorted(p.name for p in dangling)


def _link(path: Path, target: Path) -> int:
    size = path.stat().st_size
    path.unlink()
    path.symlink_to(os.path.relpath(target, path.parent))
    return size


def _exports(path: Path) -> set[str]:
    """The defined dynamic symbols with their versions (binutils' nm)."""
    listing = subprocess.run(["nm", "-D", "--defined-only", "--with-symbol-versions", str(path)],
                             capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in listing.splitlines() if line.strip()}


def _needed_in(folder: Path, name: str) -> bool:
    """Whether any ELF file under ``folder`` (symbolic links aside) needs ``name``."""
    return any(name in elf_needed(p.read_bytes()) for p in folder.rglob("*.so*")
               if p.is_file() and not p.is_symlink())


ICU_UNUSED = ("brkitr/", "translit/", "rbnf/", "curr/", "lang/", "unit/", "region/",
              "unames.icu", ".spp", "confusables.cfu", ".cnv")
"""Items of ICU's data for services Qt Core never calls (see the module's docstring), and
the code page tables (``*.cnv``, 4.9 MB): Qt converts UTF-8, UTF-16, UTF-32 and Latin-1
itself and asks ICU only for other encodings named in bytes it is given to decode (an
XML or HTML declaration, QStringDecoder); Accord decodes every file in Python and hands
Qt only strings and its own UTF-8 icons. The alias table stays, so ICU's algorithmic
converters (US-ASCII, UTF-7, SCSU, BOCU-1, CESU-8) still open by any of their names."""


def icu_items(blob: bytes) -> tuple[int, list[tuple[str, bytes]]]:
    """ICU's common data (``icudtNNl.dat``: header, table of contents, names, items) as
    (header size, [(name, item)]), in the table's (sorted) order."""
    header = struct.unpack_from("<H", blob, 0)[0]
    if blob[2:4] != b"\xda\x27" or blob[12:16] != b"CmnD":
        raise ValueError("not ICU common data")
    count = struct.unpack_from("<I", blob, header)[0]
    offsets = [struct.unpack_from("<II", blob, header + 4 + 8 * i) for i in range(count)]
    items = []
    for i, (name_at, data_at) in enumerate(offsets):
        end = offsets[i + 1][1] if i + 1 < count else len(blob) - header
        start = header + name_at
        name = blob[start:blob.index(b"\0", start)].decode()
        items.append((name, blob[header + data_at:header + end]))
    return header, items


def icu_pack(header: bytes, items: list[tuple[str, bytes]]) -> bytes:
    """The common data of ``items`` (still sorted), each item 16-byte aligned as icupkg
    writes them."""
    names = b"".join(name.encode() + b"\0" for name, _ in items)
    toc = 4 + 8 * len(items)
    first = toc + len(names)
    first += -(len(header) + first) % 16
    body = bytearray()
    entries = []
    name_at = toc
    for name, item in items:
        entries.append((name_at, first + len(body)))
        name_at += len(name.encode()) + 1
        body += item + bytes(-len(item) % 16)
    table = struct.pack("<I", len(items)) + b"".join(struct.pack("<II", *e) for e in entries)
    padding = b"\xaa" * (first - toc - len(names))  # as icupkg pads
    return header + table + names + padding + bytes(body)


def trim_icu(library: Path, unused: tuple[str, ...] = ICU_UNUSED) -> tuple[int, int]:
    """Rebuild ``library`` (libicudata.so.NN) without the items whose names hold one of
    ``unused``; returns (bytes before, bytes after). The one symbol (``icudtNN_dat``) and
    the soname stay as they were."""
    listing = subprocess.run(["nm", "-D", "-S", "--defined-only", str(library)],
                             capture_output=True, text=True, check=True).stdout
    (address, size, symbol), = [
        (int(f[0], 16), int(f[1], 16), f[3]) for f in map(str.split, listing.splitlines())
        if len(f) == 4 and f[3].startswith("icudt") and f[3].endswith("_dat")]
    data = library.read_bytes()
    offset = _file_offset(data, address)
    header_size, items = icu_items(data[offset:offset + size])
    kept = [(name, item) for name, item in items if not any(u in name for u in unused)]
    blob = icu_pack(data[offset:offset + header_size], kept)
    if icu_items(blob)[1] != kept:
        raise AssertionError("the repacked ICU data does not read back")
    soname = library.name
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "icu.dat").write_bytes(blob)
        (work / "icu.s").write_text(
            f'.section .rodata\n.globl {symbol}\n.type {symbol}, @object\n.balign 16\n'
            f'{symbol}:\n.incbin "icu.dat"\n.size {symbol}, . - {symbol}\n'
            '.section .note.GNU-stack,"",@progbits\n')
        subprocess.run(["as", "-o", "icu.o", "icu.s"], cwd=work, check=True)
        subprocess.run(["ld", "-shared", "-z", "noexecstack", "--hash-style=gnu", "-soname",
                        soname, "-o", soname, "icu.o"], cwd=work, check=True)
        built = (work / soname).read_bytes()
    library.write_bytes(built)
    return len(data), len(built)


def _file_offset(data: bytes, address: int) -> int:
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    size, count = struct.unpack_from("<HH", data, 0x36)
    for k in range(count):
        kind, _flags, offset, start, _p, filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + k * size)
        if kind == PT_LOAD and start <= address < start + filesz:
            return int(offset + address - start)
    raise ValueError(f"address {address:#x} is in no loaded segment")


SHT_SYMTAB = 2
SHF_ALLOC = 2
SECTION = "<IIQQQQIIQQ"
SEGMENT = "<IIQQQQQQ"


def cut_symbol_tables(data: bytes) -> bytes | None:
    """``data`` (a 64-bit little-endian ELF library) without its static symbol table and
    that table's strings, or None when that cannot be done safely.

    For the libraries that strip cannot handle (auditwheel's patchelf moved their dynamic
    sections; strip then misaligns a PT_LOAD): the loader never reads ``.symtab`` and its
    ``.strtab``, so whole pages of them are cut out and every later offset moves back by
    the same multiple of the largest segment alignment, which keeps each segment's
    offset ≡ address (mod alignment). The two sections are left empty; the rest of the
    file is byte for byte the same."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    phoff, shoff = struct.unpack_from("<QQ", data, 0x20)
    phsize, phnum, shsize, shnum = struct.unpack_from("<HHHH", data, 0x36)
    segments = [list(struct.unpack_from(SEGMENT, data, phoff + i * phsize)) for i in range(phnum)]
    sections = [list(struct.unpack_from(SECTION, data, shoff + i * shsize)) for i in range(shnum)]
    page = max((s[7] for s in segments if s[0] == PT_LOAD), default=0)
    tables = [i for i, s in enumerate(sections) if s[1] == SHT_SYMTAB and not s[2] & SHF_ALLOC]
    tables += [sections[i][6] for i in tables]  # sh_link: the table's strings
    if page < 0x1000 or not tables or any(sections[i][2] & SHF_ALLOC for i in tables):
        return None
    cuts = []
    for i in tables:
        start, size = sections[i][4], sections[i][5]
        length = size // page * page
        end = start + length
        overlaps = [s for s in segments if s[5] and s[2] < end and s[2] + s[5] > start]
        others = [s for k, s in enumerate(sections)
                  if k not in tables and s[5] and s[1] != 8 and s[4] < end and s[4] + s[5] > start]
        if overlaps or others or start <= phoff < end:
            return None
        if length:
            cuts.append((start, length))
        sections[i][5] = 0
    out = bytearray(data)
    for start, length in sorted(cuts, reverse=True):
        del out[start:start + length]
        for segment in segments:
            if segment[2] >= start + length:
                segment[2] -= length
        for section in sections:
            if section[4] >= start + length:
                section[4] -= length
        if shoff >= start + length:
            shoff -= length
    struct.pack_into("<Q", out, 0x28, shoff)
    for i, segment in enumerate(segments):
        struct.pack_into(SEGMENT, out, phoff + i * phsize, *segment)
    for i, section in enumerate(sections):
        struct.pack_into(SECTION, out, shoff + i * shsize, *section)
    return bytes(out)
