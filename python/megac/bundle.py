"""Pure-Python reader and writer of module bundles (.mgb, docs/bundle.md).

The runtime has its own reader; this one lets scripts and tests inspect a bundle (manifest, PTX) without the
extension, and builds small bundles for tests. Same refusals as the runtime: magic, version, bounds, CRCs.
"""
import json
import struct
import zlib

MAGIC = b"MEGACBND"
VERSION = 1
KIND_MANIFEST, KIND_BLOB = 0, 1
_ENTRY = struct.Struct("<IIQQ")


class BundleError(ValueError):
    pass


class Bundle:
    def __init__(self, manifest, blobs):
        self.manifest = manifest  # dict
        self.blobs = blobs        # list of bytes; blobs[i] is section i + 1

    def kernel(self, name):
        for k in self.manifest.get("kernels", []):
            if k["name"] == name:
                return k
        raise KeyError(f"bundle module '{self.manifest.get('module')}' has no kernel '{name}'")

    def image(self, target, kind="ptx"):
        for im in self.manifest.get("images", []):
            if im["target"] == target and im["kind"] == kind:
                return self.blobs[im["section"] - 1]
        raise KeyError(f"no {kind} image for {target}")

    def ptx(self, target="sm_90a"):
        return self.image(target, "ptx").decode()


def read_bytes(data, name="<bytes>"):
    data = bytes(data)
    if len(data) < 16 or data[:8] != MAGIC:
        raise BundleError(f"{name}: not a megac bundle (bad magic)")
    version, count = struct.unpack_from("<II", data, 8)
    if version != VERSION:
        raise BundleError(f"{name}: bundle format version {version}, this reader knows {VERSION}")
    table_end = 16 + _ENTRY.size * count
    if len(data) < table_end + 4:
        raise BundleError(f"{name}: truncated section table ({count} sections)")
    (header_crc,) = struct.unpack_from("<I", data, table_end)
    if zlib.crc32(data[:table_end]) != header_crc:
        raise BundleError(f"{name}: header CRC mismatch")
    sections = []
    for i in range(count):
        kind, crc, off, size = _ENTRY.unpack_from(data, 16 + _ENTRY.size * i)
        if off + size > len(data):
            raise BundleError(f"{name}: section {i} [{off}, {off + size}) outside the file ({len(data)} bytes)")
        payload = data[off:off + size]
        if zlib.crc32(payload) != crc:
            raise BundleError(f"{name}: section {i} CRC mismatch")
        sections.append((kind, payload))
    if not sections or sections[0][0] != KIND_MANIFEST:
        raise BundleError(f"{name}: section 0 is not the manifest")
    try:
        manifest = json.loads(sections[0][1].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BundleError(f"{name}: manifest is not valid JSON: {e}") from e
    return Bundle(manifest, [p for _, p in sections[1:]])


def read_file(path):
    with open(path, "rb") as f:
        return read_bytes(f.read(), str(path))


def write_bytes(manifest, blobs):
    return write_sections([(KIND_MANIFEST, json.dumps(manifest, indent=1).encode())] +
                          [(KIND_BLOB, bytes(b)) for b in blobs])


def write_sections(payloads):
    """A bundle of the given (kind, bytes) sections in that order, each with its CRC: write_bytes's layout, but
    any section may come first and any bytes be the manifest (tests make the bundles a reader must refuse)."""
    table_end = 16 + _ENTRY.size * len(payloads)
    off = table_end + 4
    header = bytearray(MAGIC + struct.pack("<II", VERSION, len(payloads)))
    for kind, p in payloads:
        header += _ENTRY.pack(kind, zlib.crc32(p), off, len(p))
        off += len(p)
    header += struct.pack("<I", zlib.crc32(bytes(header)))
    return bytes(header) + b"".join(p for _, p in payloads)
