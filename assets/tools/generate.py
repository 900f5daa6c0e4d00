#!/usr/bin/env python3
"""Makes the project's art and the Tiled versions of its ASCII levels.

    python3 assets/tools/generate.py

- sprites/tiles.png: the 16 x 16 tileset (solid, one-way, ladder, decoration, crate,
  character, platform, then the eighteen slopes), drawn here.
- levels/tiles.tsx: the Tiled tileset over it, each tile's `kind` property set.
- levels/<name>.tmx for each levels/<name>.txt: the same tiles and objects, as a Tiled map
  (objects: spawn points, crates, sensors, platform paths), so both formats load to the same
  level (a test checks it).
Only the standard library; run it again after editing a .txt level.
"""
import os
import struct
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TILE = 16


def png(path, width, height, pixel):
    """Writes an RGBA PNG; pixel(x, y) gives (r, g, b, a)."""
    rows = b"".join(
        b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height)
    )

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


# The character's fill: the only bright blue of the scenes (the demo's window test counts it).
CHARACTER = (89, 153, 255, 255)


# The slope tiles after the seven pictures: (ASCII character, Tiled kind, height at the left
# edge, height at the right edge, ceiling, one-way), heights in sixteenths from the floor (or,
# for a ceiling, from the top).
SLOPES = [
    ("/", "slope_right", 0, 16, False, False),
    ("\\", "slope_left", 16, 0, False, False),
    ("1", "slope_right_low", 0, 8, False, False),
    ("2", "slope_right_high", 8, 16, False, False),
    ("3", "slope_left_high", 16, 8, False, False),
    ("4", "slope_left_low", 8, 0, False, False),
    ("(", "ceiling_right", 0, 16, True, False),
    (")", "ceiling_left", 16, 0, True, False),
    ("5", "ceiling_right_low", 0, 8, True, False),
    ("6", "ceiling_right_high", 8, 16, True, False),
    ("7", "ceiling_left_high", 16, 8, True, False),
    ("8", "ceiling_left_low", 8, 0, True, False),
    ("{", "one_way_slope_right", 0, 16, False, True),
    ("}", "one_way_slope_left", 16, 0, False, True),
    ("a", "one_way_slope_right_low", 0, 8, False, True),
    ("b", "one_way_slope_right_high", 8, 16, False, True),
    ("c", "one_way_slope_left_high", 16, 8, False, True),
    ("d", "one_way_slope_left_low", 8, 0, False, True),
]


def slope_pixel(slope, u, v):
    """A slope tile: brick under the surface (over it for a ceiling), a plank along the
    surface for a one-way slope."""
    _, _, left, right, ceiling, one_way = slope
    surface = left + (right - left) * (u + 0.5) / TILE  # height at this column, from the base
    height = (TILE - 1 - v) + 0.5 if not ceiling else v + 0.5  # this pixel's, from the base
    depth = surface - height  # how far inside the solid part
    if depth < 0:
        return (0, 0, 0, 0)
    if one_way:
        if depth > 4:
            return (0, 0, 0, 0)
        return (150, 110, 60, 255) if depth < 1 or depth > 3 else (196, 150, 88, 255)
    shade = 12 * ((u * 7 + v * 3) % 3)
    return (140 + shade, 84 + shade // 2, 62, 255)


def tile_pixel(x, y):
    """Seven pictures side by side: brick, plank, ladder, grass tuft, crate, character,
    platform; then the slopes."""
    kind, u, v = x // TILE, x % TILE, y % TILE
    if kind >= 7:
        return slope_pixel(SLOPES[kind - 7], u, v)
    if kind == 4:  # crate: a frame and a diagonal brace
        frame = u in (0, 1, 14, 15) or v in (0, 1, 14, 15)
        brace = abs(u - v) <= 1
        if frame or brace:
            return (120, 78, 40, 255)
        return (182, 124, 66, 255)
    if kind == 6:  # platform: a steel plate, light along its top, with a rivet at each end
        if v < 2:
            return (214, 220, 228, 255)
        if v > 13 or u in (0, 15):
            return (70, 76, 88, 255)
        if v in (6, 7, 8, 9) and u in (2, 3, 12, 13):
            return (90, 96, 108, 255)
        return (150, 158, 170, 255)
    if kind == 5:  # character: a blue body with a darker outline and two eyes
        if u in (0, 15) or v in (0, 15):
            return (40, 70, 140, 255)
        if v in (4, 5) and u in (4, 5, 10, 11):
            return (250, 250, 250, 255)
        return CHARACTER
    if kind == 0:  # brick: mortar lines every 8 rows, offset joints
        mortar = v % 8 == 7 or (u + (4 if (v // 8) % 2 else 0)) % 16 == 15
        shade = 12 * ((u * 7 + v * 3) % 3)
        return (92, 96, 110, 255) if mortar else (140 + shade, 84 + shade // 2, 62, 255)
    if kind == 1:  # plank: the top four rows
        if v < 4:
            edge = v == 0 or v == 3
            return (150, 110, 60, 255) if edge else (196, 150, 88, 255)
        return (0, 0, 0, 0)
    if kind == 2:  # ladder: two rails and a rung every four rows
        if u in (2, 3, 12, 13) or (v % 4 == 1 and 2 <= u <= 13):
            return (170, 120, 60, 255)
        return (0, 0, 0, 0)
    # decoration: a tuft of grass at the bottom
    if v >= 11 and (u * 5 + v) % 4 != 0 and 3 <= u <= 12:
        return (70, 150 + 4 * (v - 11), 70, 255)
    return (0, 0, 0, 0)


# Tile id and kind: ids 0 to 2, then the slopes from 7; 3 to 6 have no kind (not tiles).
KINDS = [(0, "solid"), (1, "one_way"), (2, "ladder")] + [
    (7 + i, slope[1]) for i, slope in enumerate(SLOPES)]
COLUMNS = 7 + len(SLOPES)
# The tile id of each ASCII tile character.
TILE_IDS = {"#": 0, "-": 1, "H": 2, **{slope[0]: 7 + i for i, slope in enumerate(SLOPES)}}


def tsx():
    tiles = "".join(
        f' <tile id="{i}">\n  <properties>\n   <property name="kind" value="{k}"/>\n'
        f"  </properties>\n </tile>\n"
        for i, k in KINDS
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<tileset version="1.10" tiledversion="1.10.2" name="tiles" tilewidth="16" '
        f'tileheight="16" tilecount="{COLUMNS}" columns="{COLUMNS}">\n'
        f' <image source="../sprites/tiles.png" width="{COLUMNS * TILE}" height="16"/>\n'
        + tiles + "</tileset>\n"
    )


def tmx(text):
    """The Tiled map of an ASCII level (tile_size 16), with the ASCII loader's objects."""
    lines = text.rstrip("\n").split("\n")
    if lines[0].startswith("tile_size:"):
        assert float(lines[0].split(":")[1]) == TILE, "the generator makes 16-unit maps"
        lines = lines[1:]
    width, height = max(len(l) for l in lines), len(lines)
    top = height * TILE
    gids, objects = [], []
    ids = iter(range(1, 100000))
    for row, line in enumerate(lines):
        line = line.ljust(width, ".")
        for col, ch in enumerate(line):
            gids.append(TILE_IDS[ch] + 1 if ch in TILE_IDS else 0)
            cx, cy = (col + 0.5) * TILE, top - (row + 0.5) * TILE  # world centre
            oid = next(ids)
            if ch == "P":
                objects.append(f'  <object id="{oid}" name="P" type="spawn" x="{cx:g}" '
                               f'y="{top - cy:g}">\n   <point/>\n  </object>\n')
            elif ch == "B":
                objects.append(f'  <object id="{oid}" name="B" type="crate" x="{cx - 7:g}" '
                               f'y="{top - cy - 7:g}" width="14" height="14"/>\n')
            elif ch == "G":
                r = 1.25 * TILE
                objects.append(f'  <object id="{oid}" name="G" type="sensor" x="{cx - r:g}" '
                               f'y="{top - cy - r:g}" width="{2 * r:g}" height="{2 * r:g}">\n'
                               "   <ellipse/>\n  </object>\n")
            elif ch in "KVkv":
                dx, dy = (4 * TILE, 0) if ch in "Kk" else (0, -4 * TILE)
                one_way = ('    <property name="one_way" type="bool" value="true"/>\n'
                           if ch.islower() else "")
                objects.append(
                    f'  <object id="{oid}" name="{ch}" type="platform" x="{cx:g}" y="{top - cy:g}">\n'
                    "   <properties>\n"
                    '    <property name="width" type="float" value="48"/>\n'
                    '    <property name="height" type="float" value="8"/>\n'
                    '    <property name="speed" type="float" value="50"/>\n'
                    + one_way +
                    "   </properties>\n"
                    f'   <polyline points="0,0 {dx:g},{dy:g}"/>\n  </object>\n')
    # A decoration layer above the tiles: tufts on empty tiles over solid ones.
    deco = []
    for row in range(height):
        for col in range(width):
            below = gids[(row + 1) * width + col] if row + 1 < height else 0
            here = gids[row * width + col]
            deco.append(4 if here == 0 and below == 1 and (col * 7 + row) % 5 == 0 else 0)
    csv = lambda data: ",\n".join(
        ",".join(str(g) for g in data[r * width:(r + 1) * width]) for r in range(height))
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" '
        f'renderorder="right-down" width="{width}" height="{height}" tilewidth="16" '
        f'tileheight="16" infinite="0" nextlayerid="4" nextobjectid="{next(ids)}">\n'
        ' <tileset firstgid="1" source="tiles.tsx"/>\n'
        f' <layer id="1" name="tiles" width="{width}" height="{height}">\n'
        f'  <data encoding="csv">\n{csv(gids)}\n</data>\n </layer>\n'
        f' <layer id="2" name="decoration" width="{width}" height="{height}">\n'
        f'  <data encoding="csv">\n{csv(deco)}\n</data>\n </layer>\n'
        ' <objectgroup id="3" name="objects">\n' + "".join(objects) + " </objectgroup>\n"
        "</map>\n"
    )


def main():
    png(os.path.join(ROOT, "sprites", "tiles.png"), COLUMNS * TILE, TILE, tile_pixel)
    levels = os.path.join(ROOT, "levels")
    with open(os.path.join(levels, "tiles.tsx"), "w") as f:
        f.write(tsx())
    for name in sorted(os.listdir(levels)):
        if name.endswith(".txt"):
            with open(os.path.join(levels, name)) as f:
                text = f.read()
            with open(os.path.join(levels, name[:-4] + ".tmx"), "w") as f:
                f.write(tmx(text))


if __name__ == "__main__":
    main()
