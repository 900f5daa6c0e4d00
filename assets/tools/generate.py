#!/usr/bin/env python3
"""Makes the project's art and the Tiled versions of its ASCII levels.

    python3 assets/tools/generate.py

- sprites/tiles.png: the 16 x 16 tileset (solid, one-way, ladder, decoration, crate,
  character, platform, then the eighteen slopes), drawn here.
- levels/tiles.tsx: the Tiled tileset over it, each tile's `kind` property set.
- levels/<name>.tmx for each levels/<name>.txt: the same tiles and objects, as a Tiled map
  (objects: spawn points, crates, sensors, platform paths), so both formats load to the same
  level (a test checks it).
- levels/levels.ldtk: every levels/<name>.txt again, as the level <name> of one LDtk project
  (an IntGrid layer "Collision" whose values are named by tile kind, an entity layer with
  Spawn, Crate, Sensor and Platform entities), which loads to the same levels too.
Only the standard library; run it again after editing a .txt level.
"""
import json
import os
import struct
import uuid
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


def iid(*names):
    """A stable LDtk instance id (a UUID made from names, so regenerating changes nothing)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "bevy_platformer_physics/" + "/".join(names)))


# The IntGrid values of the "Collision" layer: 1, 2, ... named by tile kind.
INT_GRID = [kind for _, kind in KINDS]
INT_GRID_VALUE = {ch: INT_GRID.index(kind) + 1 for ch, kind in
                  [("#", "solid"), ("-", "one_way"), ("H", "ladder")]
                  + [(slope[0], slope[1]) for slope in SLOPES]}
ENTITY_LAYER, COLLISION_LAYER = 1, 2
# (identifier, uid, size, render mode, colour, fields: (identifier, uid, LDtk type, array))
ENTITIES = [
    ("Spawn", 10, (16, 16), "Cross", "#59A0FF", []),
    ("Crate", 11, (14, 14), "Rectangle", "#B67C42", []),
    ("Sensor", 12, (40, 40), "Ellipse", "#63C74D", []),
    ("Platform", 13, (48, 8), "Rectangle", "#969EAA",
     [("path", 21, "F_Point", True), ("speed", 22, "F_Float", False),
      ("one_way", 23, "F_Bool", False)]),
]
NAME_FIELD = ("name", 20, "F_String", False)
FIELD_TYPES = {"F_String": "String", "F_Point": "Point", "F_Float": "Float", "F_Bool": "Bool"}


def field_def(identifier, uid, kind, array):
    shown = FIELD_TYPES[kind]
    return {
        "identifier": identifier, "doc": None,
        "__type": f"Array<{shown}>" if array else shown, "uid": uid, "type": kind,
        "isArray": array, "canBeNull": kind == "F_String", "arrayMinLength": None,
        "arrayMaxLength": None, "editorDisplayMode": "PointPath" if array else "Hidden",
        "editorDisplayScale": 1, "editorDisplayPos": "Above", "editorLinkStyle": "StraightArrow",
        "editorDisplayColor": None, "editorAlwaysShow": False, "editorShowInWorld": True,
        "editorCutLongValues": True, "editorTextSuffix": None, "editorTextPrefix": None,
        "useForSmartColor": False, "exportToToc": False, "searchable": False, "min": None,
        "max": None, "regex": None, "acceptFileTypes": None,
        "defaultOverride": {"id": "V_Float", "params": [50]} if identifier == "speed" else None,
        "textLanguageMode": None, "symmetricalRef": False, "autoChainRef": True,
        "allowOutOfLevelRef": True, "allowedRefs": "Any", "allowedRefsEntityUid": None,
        "allowedRefTags": [], "tilesetUid": None,
    }


def entity_def(identifier, uid, size, render, color, fields):
    return {
        "identifier": identifier, "uid": uid, "tags": [], "exportToToc": False,
        "allowOutOfBounds": False, "doc": None, "width": size[0], "height": size[1],
        "resizableX": True, "resizableY": True, "minWidth": None, "maxWidth": None,
        "minHeight": None, "maxHeight": None, "keepAspectRatio": False, "tileOpacity": 1,
        "fillOpacity": 0.3, "lineOpacity": 1, "hollow": False, "color": color,
        "renderMode": render, "showName": True, "tilesetId": None, "tileRenderMode": "FitInside",
        "tileRect": None, "uiTileRect": None, "nineSliceBorders": [], "maxCount": 0,
        "limitScope": "PerLevel", "limitBehavior": "MoveLastOne", "pivotX": 0.5, "pivotY": 0.5,
        "fieldDefs": [field_def(*f) for f in [NAME_FIELD] + fields],
    }


def layer_def(identifier, uid, kind, values):
    return {
        "__type": kind, "identifier": identifier, "type": kind, "uid": uid, "doc": None,
        "uiColor": None, "gridSize": TILE, "guideGridWid": 0, "guideGridHei": 0,
        "displayOpacity": 1, "inactiveOpacity": 0.6, "hideInList": False,
        "hideFieldsWhenInactive": True, "canSelectWhenInactive": True,
        "renderInWorldView": True, "pxOffsetX": 0, "pxOffsetY": 0, "parallaxFactorX": 0,
        "parallaxFactorY": 0, "parallaxScaling": True, "requiredTags": [], "excludedTags": [],
        "autoTilesKilledByOtherLayerUid": None, "uiFilterTags": [], "useAsyncRender": False,
        "intGridValues": values, "intGridValuesGroups": [], "autoRuleGroups": [],
        "autoSourceLayerDefUid": None, "tilesetDefUid": None, "tilePivotX": 0, "tilePivotY": 0,
        "biomeFieldUid": None,
    }


def field_instance(identifier, uid, kind, array, value):
    """A field's value as LDtk stores it: `__value` for readers, `realEditorValues` for the
    editor."""
    shown = FIELD_TYPES[kind]
    if array:
        editor = [{"id": "V_Point", "params": [p["cx"], p["cy"]]} for p in value]
    else:
        editor = [{"id": "V_" + shown, "params": [value]}]
    return {"__identifier": identifier, "__type": f"Array<{shown}>" if array else shown,
            "__value": value, "__tile": None, "defUid": uid, "realEditorValues": editor}


def ldtk_level(name, text, uid, world_y):
    """One LDtk level of an ASCII level (tile_size 16), with the ASCII loader's objects."""
    lines = text.rstrip("\n").split("\n")
    if lines[0].startswith("tile_size:"):
        assert float(lines[0].split(":")[1]) == TILE, "the generator makes 16-unit maps"
        lines = lines[1:]
    width, height = max(len(l) for l in lines), len(lines)
    csv, entities = [], []
    for row, line in enumerate(lines):
        for col, ch in enumerate(line.ljust(width, ".")):
            csv.append(INT_GRID_VALUE.get(ch, 0))
            if ch not in "PBGKVkv":
                continue
            identifier = {"P": "Spawn", "B": "Crate", "G": "Sensor"}.get(ch, "Platform")
            _, def_uid, size, _, color, fields = next(e for e in ENTITIES if e[0] == identifier)
            cx, cy = col * TILE + TILE // 2, row * TILE + TILE // 2  # its centre, y down
            values = [field_instance(*NAME_FIELD, ch)]
            if identifier == "Platform":
                to = (col + 4, row) if ch in "Kk" else (col, row - 4)
                values += [field_instance(*fields[0], [{"cx": to[0], "cy": to[1]}]),
                           field_instance(*fields[1], 50.0),
                           field_instance(*fields[2], ch.islower())]
            entities.append({
                "__identifier": identifier, "__grid": [col, row], "__pivot": [0.5, 0.5],
                "__tags": [], "__tile": None, "__smartColor": color,
                "__worldX": cx, "__worldY": world_y + cy,
                "iid": iid(name, ch, str(col), str(row)), "width": size[0], "height": size[1],
                "defUid": def_uid, "px": [cx, cy], "fieldInstances": values,
            })

    def layer(identifier, kind, def_uid, **data):
        return {
            "__identifier": identifier, "__type": kind, "__cWid": width, "__cHei": height,
            "__gridSize": TILE, "__opacity": 1, "__pxTotalOffsetX": 0, "__pxTotalOffsetY": 0,
            "__tilesetDefUid": None, "__tilesetRelPath": None, "iid": iid(name, identifier),
            "levelId": uid, "layerDefUid": def_uid, "pxOffsetX": 0, "pxOffsetY": 0,
            "visible": True, "optionalRules": [], "intGridCsv": [], "autoLayerTiles": [],
            "seed": uid, "overrideTilesetUid": None, "gridTiles": [], "entityInstances": [],
            **data,
        }

    return {
        "identifier": name, "iid": iid(name), "uid": uid, "worldX": 0, "worldY": world_y,
        "worldDepth": 0, "pxWid": width * TILE, "pxHei": height * TILE,
        "__bgColor": "#40465B", "bgColor": None, "useAutoIdentifier": False, "bgRelPath": None,
        "bgPos": None, "bgPivotX": 0.5, "bgPivotY": 0.5, "__smartColor": "#ADB4C9",
        "__bgPos": None, "externalRelPath": None, "fieldInstances": [],
        # LDtk lists a level's layers from the top one down.
        "layerInstances": [
            layer("Entities", "Entities", ENTITY_LAYER, entityInstances=entities),
            layer("Collision", "IntGrid", COLLISION_LAYER, intGridCsv=csv),
        ],
        "__neighbours": [],
    }


def ldtk(levels):
    """The LDtk project holding `levels` ((name, ASCII text) pairs), one above the other."""
    # Each value's colour in the editor: brick for solid tiles and slopes, plank for one-way
    # tiles and slopes, wood for ladders.
    def color(kind):
        if kind == "ladder":
            return "#AA783C"
        return "#C49658" if kind.startswith("one_way") else "#A0623E"
    values = [{"value": i + 1, "identifier": kind, "color": color(kind), "tile": None,
               "groupUid": 0} for i, kind in enumerate(INT_GRID)]
    placed, world_y = [], 0
    for uid, (name, text) in enumerate(levels):
        level = ldtk_level(name, text, uid, world_y)
        placed.append(level)
        world_y += level["pxHei"] + 4 * TILE
    project = {
        "__header__": {"fileType": "LDtk Project JSON", "app": "LDtk",
                       "doc": "https://ldtk.io/json", "schema": "https://ldtk.io/files/JSON_SCHEMA.json",
                       "appAuthor": "Sebastien 'deepnight' Benard", "appVersion": "1.5.3",
                       "url": "https://ldtk.io"},
        "iid": iid("project"), "jsonVersion": "1.5.3", "appBuildId": 473703,
        "nextUid": 100, "identifierStyle": "Free", "toc": [], "worldLayout": "Free",
        "worldGridWidth": 256, "worldGridHeight": 256, "defaultLevelWidth": 256,
        "defaultLevelHeight": 256, "defaultPivotX": 0.5, "defaultPivotY": 0.5,
        "defaultGridSize": TILE, "defaultEntityWidth": TILE, "defaultEntityHeight": TILE,
        "bgColor": "#40465B", "defaultLevelBgColor": "#696A79", "minifyJson": False,
        "externalLevels": False, "exportTiled": False, "simplifiedExport": False,
        "imageExportMode": "None", "exportLevelBg": True, "pngFilePattern": None,
        "backupOnSave": False, "backupLimit": 10, "backupRelPath": None,
        "levelNamePattern": "Level_%idx", "tutorialDesc": None, "customCommands": [],
        "flags": [],
        "defs": {
            "layers": [
                layer_def("Entities", ENTITY_LAYER, "Entities", []),
                layer_def("Collision", COLLISION_LAYER, "IntGrid", values),
            ],
            "entities": [entity_def(*e) for e in ENTITIES],
            "tilesets": [], "enums": [], "externalEnums": [], "levelFields": [],
        },
        "levels": placed, "worlds": [], "dummyWorldIid": iid("world"),
    }
    return json.dumps(project, indent=1) + "\n"


def main():
    png(os.path.join(ROOT, "sprites", "tiles.png"), COLUMNS * TILE, TILE, tile_pixel)
    levels = os.path.join(ROOT, "levels")
    with open(os.path.join(levels, "tiles.tsx"), "w") as f:
        f.write(tsx())
    texts = []
    for name in sorted(os.listdir(levels)):
        if name.endswith(".txt"):
            with open(os.path.join(levels, name)) as f:
                text = f.read()
            with open(os.path.join(levels, name[:-4] + ".tmx"), "w") as f:
                f.write(tmx(text))
            texts.append((name[:-4], text))
    with open(os.path.join(levels, "levels.ldtk"), "w") as f:
        f.write(ldtk(texts))


if __name__ == "__main__":
    main()
