"""Writes a small MBTiles file of made-up street-map tiles around the browser tests' ride in Cupertino, so
that screenshots show a map instead of grey (the tests have no network for real tiles).

    python3 make_mbtiles.py OUT.mbtiles

Pure Python (zlib for PNG), about 400 tiles at zooms 12-17, a few seconds. The "streets" are a grid every
0.0025 degrees with a major road every 0.01 degrees, drawn in world pixel space so tiles join seamlessly.
"""
import math
import sqlite3
import struct
import sys
import zlib

BOUNDS = (-122.050, 37.310, -122.000, 37.345)  # west, south, east, north
ZOOMS = range(12, 18)
BACKGROUND = (242, 239, 233)
PARK = (205, 235, 200)
STREET = (255, 255, 255)
MAJOR = (250, 200, 120)
CASING = (210, 205, 195)


def world_pixel(lon, lat, zoom):
    size = 256 * 2 ** zoom
    x = (lon + 180) / 360 * size
    phi = math.radians(lat)
    y = (1 - math.log(math.tan(phi) + 1 / math.cos(phi)) / math.pi) / 2 * size
    return x, y


def tile_range(zoom):
    west, south, east, north = BOUNDS
    x0, y0 = world_pixel(west, north, zoom)
    x1, y1 = world_pixel(east, south, zoom)
    return range(int(x0 // 256), int(x1 // 256) + 1), range(int(y0 // 256), int(y1 // 256) + 1)


def lines_in(start, end, step, project):
    """Pixel positions of grid lines (every `step` degrees) between two coordinates, with a flag for major ones."""
    first = math.floor(min(start, end) / step)
    last = math.ceil(max(start, end) / step)
    return [(project(k * step), k % 4 == 0) for k in range(first, last + 1)]


def png(width, height, rows):
    raw = b''.join(b'\x00' + bytes(row) for row in rows)
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')


def render(zoom, tx, ty):
    ox, oy = tx * 256, ty * 256
    width = max(1, 2 ** (zoom - 14))  # street width grows with zoom
    west_lon = (ox / (256 * 2 ** zoom)) * 360 - 180
    east_lon = ((ox + 256) / (256 * 2 ** zoom)) * 360 - 180
    def lat_of(py):
        n = math.pi * (1 - 2 * py / (256 * 2 ** zoom))
        return math.degrees(math.atan(math.sinh(n)))
    north_lat, south_lat = lat_of(oy), lat_of(oy + 256)
    columns = lines_in(west_lon, east_lon, 0.0025, lambda lon: world_pixel(lon, 0, zoom)[0] - ox)
    rows_at = lines_in(south_lat, north_lat, 0.0025, lambda lat: world_pixel(0, lat, zoom)[1] - oy)

    def row_pattern(base):
        row = list(base) * 256
        for x, major in columns:
            half = width * (2 if major else 1)
            for px in range(int(x - half), int(x + half) + 1):
                if 0 <= px < 256:
                    row[3 * px:3 * px + 3] = MAJOR if major else STREET
        return row

    # Blocks alternate between built-up and park by their grid cell, so the map has some texture.
    plain = row_pattern(BACKGROUND)
    parky = row_pattern(PARK)
    cell_lon = math.floor(west_lon / 0.0025)
    rows = []
    for py in range(256):
        lat = lat_of(oy + py + 0.5)
        cell_lat = math.floor(lat / 0.0025)
        rows.append(parky if (cell_lat * 7 + cell_lon * 3) % 5 == 0 else plain)
    for y, major in rows_at:
        half = width * (2 if major else 1)
        colour = MAJOR if major else STREET
        line = list(colour) * 256
        for py in range(int(y - half), int(y + half) + 1):
            if 0 <= py < 256:
                rows[py] = line
    return png(256, 256, rows)


def main(path):
    database = sqlite3.connect(path)
    database.executescript("""
        DROP TABLE IF EXISTS metadata; DROP TABLE IF EXISTS tiles;
        CREATE TABLE metadata (name TEXT, value TEXT);
        CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
        CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
    """)
    west, south, east, north = BOUNDS
    metadata = {
        'name': 'bikeride test map', 'format': 'png', 'minzoom': str(min(ZOOMS)), 'maxzoom': str(max(ZOOMS)),
        'bounds': f'{west},{south},{east},{north}', 'center': f'{(west + east) / 2},{(south + north) / 2},15',
        'attribution': 'bikeride test tiles (made up)', 'type': 'baselayer',
    }
    database.executemany('INSERT INTO metadata VALUES (?, ?)', metadata.items())
    count = 0
    for zoom in ZOOMS:
        xs, ys = tile_range(zoom)
        for tx in xs:
            for ty in ys:
                tms_row = 2 ** zoom - 1 - ty
                database.execute('INSERT INTO tiles VALUES (?, ?, ?, ?)', (zoom, tx, tms_row, render(zoom, tx, ty)))
                count += 1
    database.commit()
    database.close()
    return count


if __name__ == '__main__':
    print(f'{main(sys.argv[1])} tiles written to {sys.argv[1]}')
