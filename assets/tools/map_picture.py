#!/usr/bin/env python3
"""Draws a Tiled map the way the editor shows it: its tile layers with the tileset, and its
object layer's shapes outlined in one colour per class, for the README.

    python3 assets/tools/map_picture.py assets/levels/demo.tmx docs/tiled-demo.png

Classes: spawn (a green point), crate (an orange box), sensor (a cyan ellipse), platform (a
magenta path, with the platform's box at its first point). Only the standard library.
"""
import os
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import png  # noqa: E402  (the project's PNG writer)

SCALE = 2
BACKGROUND = (40, 44, 52, 255)
GRID = (58, 62, 72, 255)
CLASS_COLOURS = {
    "spawn": (80, 230, 80, 255),
    "crate": (255, 160, 40, 255),
    "sensor": (60, 220, 240, 255),
    "platform": (240, 70, 220, 255),
}


def read_png(path):
    """An 8-bit RGBA PNG as (width, height, rows of (r, g, b, a))."""
    data = open(path, "rb").read()
    at, idat, width, height = 8, b"", 0, 0
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert (depth, colour) == (8, 6), "an 8-bit RGBA PNG"
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * 4, [], bytes(width * 4)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b, c = prev[i], prev[i - 4] if i >= 4 else 0
            p = a + b - c
            pred = [0, a, b, (a + b) // 2,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c)
                    else b if abs(p - b) <= abs(p - c) else c][kind]
            line[i] = (line[i] + pred) & 255
        rows.append([tuple(line[x * 4:x * 4 + 4]) for x in range(width)])
        prev = bytes(line)
    return width, height, rows


def main(tmx_path, out_path):
    root = ET.parse(tmx_path).getroot()
    width, height = int(root.get("width")), int(root.get("height"))
    tile = int(root.get("tilewidth"))
    tileset = root.find("tileset")
    first_gid = int(tileset.get("firstgid"))
    tsx_path = os.path.join(os.path.dirname(tmx_path), tileset.get("source"))
    tsx = ET.parse(tsx_path).getroot()
    image = tsx.find("image")
    columns = int(tsx.get("columns"))
    _, _, sheet = read_png(os.path.join(os.path.dirname(tsx_path), image.get("source")))
    w, h = width * tile * SCALE, height * tile * SCALE
    canvas = [[BACKGROUND if (x // SCALE % tile and y // SCALE % tile) else GRID
               for x in range(w)] for y in range(h)]

    def blend(x, y, colour):
        if 0 <= x < w and 0 <= y < h and colour[3]:
            canvas[y][x] = colour

    for layer in root.findall("layer"):
        gids = [int(g) for g in layer.find("data").text.replace("\n", "").split(",")]
        for i, gid in enumerate(gids):
            if gid < first_gid:
                continue
            index = gid - first_gid
            sx, sy = index % columns * tile, index // columns * tile
            tx, ty = i % width * tile, i // width * tile
            for v in range(tile * SCALE):
                for u in range(tile * SCALE):
                    blend(tx * SCALE + u, ty * SCALE + v, sheet[sy + v // SCALE][sx + u // SCALE])

    def line(x0, y0, x1, y1, colour):
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for k in range(int(steps) + 1):
            x, y = x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps
            for dx in (0, 1):
                for dy in (0, 1):
                    blend(int(x) + dx, int(y) + dy, colour)

    def rect(x, y, rw, rh, colour):
        corners = [(x, y), (x + rw, y), (x + rw, y + rh), (x, y + rh), (x, y)]
        for (ax, ay), (bx, by) in zip(corners, corners[1:]):
            line(ax, ay, bx, by, colour)

    for group in root.findall("objectgroup"):
        for obj in group.findall("object"):
            colour = CLASS_COLOURS.get(obj.get("type") or obj.get("class"), (255, 255, 255, 255))
            x, y = float(obj.get("x")) * SCALE, float(obj.get("y")) * SCALE
            ow, oh = float(obj.get("width", 0)) * SCALE, float(obj.get("height", 0)) * SCALE
            if obj.find("point") is not None:
                for r in range(2, 7, 2):
                    for k in range(64):
                        import math
                        blend(int(x + r * math.cos(k / 10.0)), int(y + r * math.sin(k / 10.0)), colour)
            elif obj.find("ellipse") is not None:
                import math
                cx, cy = x + ow / 2, y + oh / 2
                for k in range(720):
                    a = k * math.pi / 360
                    for d in (0, 1):
                        blend(int(cx + (ow / 2 - d) * math.cos(a)), int(cy + (oh / 2 - d) * math.sin(a)), colour)
            elif obj.find("polyline") is not None:
                points = [tuple(float(c) * SCALE for c in p.split(","))
                          for p in obj.find("polyline").get("points").split()]
                for (ax, ay), (bx, by) in zip(points, points[1:]):
                    line(x + ax, y + ay, x + bx, y + by, colour)
                props = {p.get("name"): p.get("value") for p in obj.iter("property")}
                pw = float(props.get("width", 48)) * SCALE
                ph = float(props.get("height", 8)) * SCALE
                rect(x - pw / 2, y - ph / 2, pw, ph, colour)
            else:
                rect(x, y, ow, oh, colour)
    png(out_path, w, h, lambda px, py: canvas[py][px])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
