"""The ppf `pystart` workload: an application's start-up.

Debian 12's Python 3.11 starts, imports matplotlib (with numpy and Pillow)
and a spread of the standard library, draws one figure and saves it.  Almost
all of the time goes to opening, reading and mapping a few hundred small
files (.pyc modules, extension modules, shared libraries, matplotlib's style
and font data): the start-up of a typical interpreted application.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import argparse  # noqa: E402,F401
import asyncio  # noqa: E402,F401
import decimal  # noqa: E402,F401
import email.mime.multipart  # noqa: E402,F401
import http.server  # noqa: E402,F401
import json  # noqa: E402,F401
import logging.handlers  # noqa: E402,F401
import sqlite3  # noqa: E402,F401
import unittest  # noqa: E402,F401
import xml.etree.ElementTree  # noqa: E402,F401

fig, ax = plt.subplots()
x = np.linspace(0, 10, 200)
ax.plot(x, np.sin(x))
ax.set_title("ppf pystart")
fig.savefig(sys.argv[1])
