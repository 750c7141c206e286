"""Print the closing 'N passed, N failed' line from pytest's junit xml."""
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root)
tests = sum(int(s.get("tests", 0)) for s in suites)
bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
print("%d passed, %d failed" % (tests - bad - skipped, bad))
sys.exit(1 if bad else 0)
