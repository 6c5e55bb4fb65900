#!/usr/bin/env python3
"""After a failed `swift test`: what failed, and which tests were still running if the process died.

CI shows the end of the output, where a crash's backtrace is; the failures and the test that crashed are far
above it. This prints them again, last: each distinct failure once (with how often it was recorded), and whether the run
ended without its summary line (a crash).

Usage: swift_test_summary.py LOG
"""
import re
import sys

STARTED = re.compile(r"^◇ Test (.+?) started\.$")
ENDED = re.compile(r"^[✔✘] Test (.+?) (?:passed|failed|skipped)\b")
ISSUE = re.compile(r"^✘ Test (.+?) recorded an issue")
RUN_END = re.compile(r"^[✔✘] Test run with \d+ tests?")
CASE = re.compile(r"^case passing .* to (\S+)$")
XCTEST_STARTED = re.compile(r"^Test Case '(.+?)' started")
XCTEST_ENDED = re.compile(r"^Test Case '(.+?)' (?:passed|failed|skipped)")


def main(path):
    running = {}
    issues = {}
    finished_run = False
    with open(path, encoding="utf-8", errors="replace") as log:
        for number, line in enumerate(log, 1):
            line = line.rstrip("\n")
            if RUN_END.match(line):
                finished_run = True
            for pattern in (STARTED, XCTEST_STARTED):
                match = pattern.match(line)
                if match:
                    name = match.group(1)
                    # A parameterised test's cases print no end of their own: they end with their test.
                    case = CASE.match(name)
                    running.setdefault(case.group(1) if case else name, []).append((number, name))
            for pattern in (ENDED, XCTEST_ENDED):
                match = pattern.match(line)
                if match:
                    running.pop(match.group(1), None)
            if ISSUE.match(line) or line.startswith("error:") or " error: " in line:
                issues[line[:400]] = issues.get(line[:400], 0) + 1
    print("\n==== swift test summary ====")
    for text, count in list(issues.items())[:40]:
        print(f"{count}× {text}" if count > 1 else text)
    if len(issues) > 40:
        print(f"... and {len(issues) - 40} more distinct failures")
    if not finished_run:
        print("The test run ended without its summary (a crash?). Tests started and not finished:")
        # swift-testing starts every test at once (they interleave at their awaits), so which one crashed cannot
        # be told from the log: the crash's own backtrace, above, names the frames.
        print(f"  {len(running)} tests had started and not finished; the backtrace above shows where the process died.")


if __name__ == "__main__":
    main(sys.argv[1])
