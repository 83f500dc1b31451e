"""PC Screen Font (PSF1 and PSF2) files, as Debian's console-setup and kbd ship them
(/usr/share/consolefonts/*.psf.gz): the glyph for each Latin-1 character.

Used at build time by tools/psf2c (the kernel's console font) and by the boot tests, which
read the rendered screen back by comparing each character cell with these glyphs.
"""
import gzip

PSF1_MAGIC = b"\x36\x04"
PSF2_MAGIC = b"\x72\xb5\x4a\x86"


class Font:
    """width x height pixels per glyph; glyph(code) is height rows of row_bytes bytes each,
    the leftmost pixel in the top bit of the first byte."""

    def __init__(self, width, height, glyphs, unicode_map):
        self.width, self.height = width, height
        self.row_bytes = (width + 7) // 8
        self.glyphs = glyphs  # list of bytes, one per glyph in the file
        self.unicode_map = unicode_map  # code point -> glyph index (identity when the file has none)

    def index(self, code):
        """The glyph index for a code point: its own glyph, else '?'s, else glyph 0."""
        if code in self.unicode_map:
            return self.unicode_map[code]
        return self.unicode_map.get(ord("?"), 0)

    def glyph(self, code):
        return self.glyphs[self.index(code)]

    def pixel(self, code, x, y):
        g = self.glyph(code)
        return bool(g[y * self.row_bytes + x // 8] & (0x80 >> (x % 8)))

    def latin1_bitmap(self):
        """256 glyphs, one per Latin-1 code point, concatenated."""
        return b"".join(self.glyph(c) for c in range(256))


def _psf1(data):
    mode, height = data[2], data[3]
    count = 512 if mode & 0x01 else 256
    glyphs = [data[4 + i * height:4 + (i + 1) * height] for i in range(count)]
    umap = {}
    if mode & 0x02:  # a table follows: per glyph, UCS-2 values ended by 0xFFFF (0xFFFE: sequences)
        pos, g = 4 + count * height, 0
        in_seq = False
        while g < count and pos + 1 < len(data):
            v = data[pos] | data[pos + 1] << 8
            pos += 2
            if v == 0xFFFF:
                g, in_seq = g + 1, False
            elif v == 0xFFFE:
                in_seq = True
            elif not in_seq:
                umap.setdefault(v, g)
    else:
        umap = {c: c for c in range(min(count, 256))}
    return Font(8, height, glyphs, umap)


def _psf2(data):
    def u32(off):
        return int.from_bytes(data[off:off + 4], "little")
    header, flags, count, size, height, width = (u32(8), u32(12), u32(16), u32(20), u32(24), u32(28))
    glyphs = [data[header + i * size:header + (i + 1) * size] for i in range(count)]
    umap = {}
    if flags & 0x01:  # per glyph, UTF-8 text ended by 0xFF (0xFE starts sequences)
        pos = header + count * size
        for g in range(count):
            end = data.index(b"\xff", pos)
            entry = data[pos:end].split(b"\xfe")[0]
            for ch in entry.decode("utf-8", "replace"):
                umap.setdefault(ord(ch), g)
            pos = end + 1
    else:
        umap = {c: c for c in range(min(count, 256))}
    return Font(width, height, glyphs, umap)


def load(path):
    """The font in a .psf or .psf.gz file; ValueError when it is neither PSF1 nor PSF2."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if data[:2] == PSF1_MAGIC:
        return _psf1(data)
    if data[:4] == PSF2_MAGIC:
        return _psf2(data)
    raise ValueError(f"{path}: not a PSF1 or PSF2 font")
