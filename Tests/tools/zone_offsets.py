#!/usr/bin/env python3
"""UTC offsets by Python's zoneinfo (the IANA tz database, an implementation independent of Foundation's), for
TimeZoneTests.

Usage: zone_offsets.py < [[zone, unix_seconds], ...]   (JSON on standard input)
Prints a JSON list of offsets in seconds, one per pair, in order.
"""
import json
import sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

pairs = json.load(sys.stdin)
print(json.dumps([int(datetime.fromtimestamp(seconds, timezone.utc).astimezone(ZoneInfo(zone)).utcoffset().total_seconds())
                  for zone, seconds in pairs]))
