"""Drives the monitor page in a real browser against `horizondb serve --demo harbor`.

Usage: python3 monitor.py HORIZONDB_BINARY SCREENSHOT.png
Needs Debian's chromium, chromium-driver and python3-selenium (.ci/run installs them).
Waits for conflicts to appear in the page's table, checks them against the server's own
answer, and saves a screenshot.
"""
import json
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def main(binary, screenshot):
    data = tempfile.mkdtemp(prefix="hz-browser-")
    server = subprocess.Popen(
        [binary, "serve", "--demo", "harbor", "--demo-speed", "60", "--bind", "127.0.0.1:0",
         "--data-dir", data + "/db"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline().strip()
        prefix = "HorizonDB listening on "
        assert line.startswith(prefix), f"no address from the server: {line!r}"
        url = line[len(prefix):]
        opts = Options()
        opts.binary_location = "/usr/bin/chromium"
        for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--user-data-dir=" + data + "/profile",
                     "--window-size=1400,900"]:
            opts.add_argument(flag)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
        try:
            driver.get(url + "/")
            # The table is redrawn on every event: read it in one go, in the page.
            read = ("return [...document.querySelectorAll('#conflicts tr')]"
                    ".map(r => [r.dataset.a, r.dataset.b, ...[...r.cells].map(c => c.textContent)])")
            WebDriverWait(driver, 90).until(lambda d: len(d.execute_script(read)) > 0)
            WebDriverWait(driver, 30).until(
                lambda d: d.find_element(By.ID, "status").text.startswith("live"))
            # Every pair on the page is one the server predicts (same parameters as the page's
            # defaults), give or take the few changes between the two looks.
            time.sleep(2)
            table = driver.execute_script(read)
            shown = {(r[0], r[1]) for r in table}
            q = url + "/v1/collisions?horizon=600&margin=50&min_speed=0.5"
            answer = json.load(urllib.request.urlopen(q))
            server_pairs = {(p["a"], p["b"]) for p in answer["pairs"]}
            common = shown & server_pairs
            assert len(common) >= max(1, len(shown) // 2), (shown, server_pairs)
            assert len(table[0]) == 6 and " – " in table[0][2], table[0]
            driver.save_screenshot(screenshot)
            print(f"{len(shown)} conflicts on the page, {len(common)} also in the server's "
                  f"answer of {len(server_pairs)}; screenshot {screenshot}")
        finally:
            driver.quit()
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
