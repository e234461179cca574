#!/usr/bin/env python3
"""The inspector in a real browser: headless Chromium driven by WebDriver.

Records the demo's log with the built `rewind`, serves it with `rewind serve`, and does what a
user does on the page: step to seq 12 and read the diff, run the non-negative-total invariant,
shrink it to a test, skip seq 11 in what-if, verify, see the warning for a log recorded with
other types, follow a log while a recorder appends to it, and open a collector's store on
its Reports view and a report at its trigger. Saves a screenshot of each view. Run by Tools/browser-tests.sh (which installs what is
missing); exits non-zero on the first failed check.

usage: inspector_test.py BIN_DIR WORK_DIR SCREENSHOT_DIR
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

BIN, WORK, SHOTS = (os.path.abspath(path) for path in sys.argv[1:4])
os.makedirs(WORK, exist_ok=True)
os.makedirs(SHOTS, exist_ok=True)
REWIND = os.path.join(BIN, "rewind")
STRESS = os.path.join(BIN, "rewind-stress")
children = []


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print(f"ok: {message}")


def serve(log, *options):
    """Starts `rewind serve LOG --json OPTIONS` and returns its URL."""
    process = subprocess.Popen([REWIND, "serve", log, "--json", *options], cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    children.append(process)
    line = process.stdout.readline()
    if not line:
        raise AssertionError(f"rewind serve printed nothing: {process.stderr.read()}")
    return json.loads(line)["url"]


def browser():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,900"]:
        options.add_argument(argument)
    binary = next((path for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"] if os.path.exists(path)), None)
    if binary:
        options.binary_location = binary
    driver_path = next((path for path in ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"] if os.path.exists(path)), None)
    return webdriver.Chrome(service=Service(driver_path) if driver_path else Service(), options=options)


def texts_of(driver, selector):
    """The visible text of every element matching SELECTOR ("" for one not rendered), read in one
    script so a re-render between finding an element and reading it cannot leave a stale reference."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), node => node.getClientRects().length ? node.innerText : '')",
        selector)


def text_of(driver, selector):
    """The first match's text, or "" when nothing matches yet."""
    return next(iter(texts_of(driver, selector)), "")


def attribute_of(driver, xpath, name, timeout=20):
    """An attribute of the element at xpath, found again while a view re-renders under it
    (a found element can go stale between finding it and reading it)."""
    deadline = time.time() + timeout
    while True:
        try:
            return driver.find_element(By.XPATH, xpath).get_attribute(name)
        except StaleElementReferenceException:
            if time.time() > deadline:
                raise
            time.sleep(0.05)


def wait_text(driver, selector, needle, timeout=20):
    WebDriverWait(driver, timeout).until(lambda d: needle in text_of(d, selector))


def tab(driver, name):
    driver.find_element(By.CSS_SELECTOR, f'#tabs button[data-tab="{name}"]').click()


def shot(driver, name):
    path = os.path.join(SHOTS, f"{name}.png")
    driver.save_screenshot(path)
    print(f"screenshot: {path}")


def reports_view(driver, demo):
    """A collector's store in the inspector: three reports of the demo uploaded to a real
    `rewind collect`, two of one signature; the Reports view groups them, and a click opens one
    at its trigger, where the bug is."""
    import hashlib
    import urllib.request
    for name in ["team.key", "team.key.pub", "tokens", "reports.sqlite"] + [f"r{i}.rwreport" for i in range(3)]:
        if os.path.exists(os.path.join(WORK, name)):
            os.remove(os.path.join(WORK, name))
    subprocess.run([REWIND, "report", "keygen", "--id", "team", "--output", "team.key"], cwd=WORK, check=True, stdout=subprocess.DEVNULL)
    for index, around in enumerate(["12", "12", "30"]):
        subprocess.run([REWIND, "report", "create", demo, "--session", "1", "--around", around, "--public-key-file", "team.key.pub",
                        "--output", f"r{index}.rwreport"], cwd=WORK, check=True, stdout=subprocess.DEVNULL)
    header = json.loads(subprocess.run([REWIND, "report", "show", "r0.rwreport", "--json"], cwd=WORK, check=True,
                                       capture_output=True, text=True).stdout)["header"]
    token = subprocess.run([REWIND, "collect", "token", "--tokens", "tokens", "--name", "shop", "--ingest", header["app"]["id"]],
                           cwd=WORK, check=True, capture_output=True, text=True).stdout.strip()
    collector = subprocess.Popen([REWIND, "collect", "--store", "reports.sqlite", "--tokens", "tokens", "--listen", "127.0.0.1:0"],
                                 cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    children.append(collector)
    base = collector.stdout.readline().strip().rsplit(" ", 1)[-1]
    for index in range(3):
        with open(os.path.join(WORK, f"r{index}.rwreport"), "rb") as file:
            body = file.read()
        request = urllib.request.Request(base + "/v1/reports", data=body, method="POST", headers={
            "Authorization": f"Bearer {token}", "Idempotency-Key": hashlib.sha256(body).hexdigest(), "Rewind-Install": "browser-test"})
        with urllib.request.urlopen(request) as answer:
            check(answer.status == 201, f"report {index} is stored by rewind collect")
    collector.terminate()
    collector.wait()

    driver.get(serve("reports.sqlite", "--key-file", "team.key"))
    wait = WebDriverWait(driver, 20)
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#reports tr.group")))
    check(driver.find_element(By.ID, "reports").is_displayed() and not driver.find_element(By.TAG_NAME, "main").is_displayed()
          and "3 report(s)" in text_of(driver, "#summary"), f"the page opens on the Reports view, alone ({text_of(driver, '#summary')})")
    counts = sorted(int(text) for text in texts_of(driver, "#reports tr.group td.count"))
    check(counts == [1, 2], f"three reports in two signature groups ({counts})")
    shot(driver, "reports")
    group = next(row for row in driver.find_elements(By.CSS_SELECTOR, "#reports tr.group")
                 if row.find_element(By.CSS_SELECTOR, "td.count").text == "2")
    group.find_element(By.LINK_TEXT, "open the first").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="12"].selected')))
    check("reports.sqlite#" in text_of(driver, "#title"), f"the title names the report opened ({text_of(driver, '#title')})")
    check(not driver.find_element(By.ID, "reports").is_displayed(), "the report's timeline is shown without the Reports view")
    tab(driver, "diff")
    wait_text(driver, "#diff-text", "total: -1000")
    check(True, "the report opens on its trigger, seq 12, whose diff shows the total going negative")
    shot(driver, "report-timeline")
    driver.find_element(By.ID, "to-reports").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#reports tr.group")))
    check(driver.find_element(By.ID, "reports").is_displayed() and not driver.find_element(By.TAG_NAME, "main").is_displayed(), "back to the Reports view")


def main():
    demo = os.path.join(WORK, "rewind-demo.rewind")
    if os.path.exists(demo):
        os.remove(demo)
    subprocess.run([REWIND, "demo", "--quiet", "--output", demo], cwd=WORK, check=True)
    driver = browser()
    try:
        driver.get(serve(demo))
        wait = WebDriverWait(driver, 20)
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="1"].selected')))
        check("seq 1–60" in text_of(driver, "#summary"), "the header shows the log's seq range")
        shot(driver, "timeline")

        # Jump to seq 12 and read what it changed.
        field = driver.find_element(By.ID, "jump-seq")
        field.send_keys("12")
        field.submit()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="12"].selected')))
        wait_text(driver, "#panel-event h2", "seq 12")
        check("cart.setQuantity" in text_of(driver, "#panel-event"), "the event view shows seq 12's case")
        shot(driver, "event")
        tab(driver, "diff")
        wait_text(driver, "#diff-text", "total: -1000")
        plus = texts_of(driver, "#diff-text .plus")
        check(any("total: -1000" in line for line in plus), "the diff marks the total going to -10.00 (-1000 cents) as added")
        shot(driver, "diff")
        tab(driver, "state")
        wait_text(driver, "#state-info", "after seq 12")
        search = driver.find_element(By.ID, "state-search")
        search.send_keys("discountAmount")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#state-tree .match")))
        check("discountAmount" in text_of(driver, "#state-tree .match"), "searching the state finds and opens the matching key")
        search.clear()
        search.send_keys("total")
        wait_text(driver, "#state-tree", "-10.00 (-1000)")
        totals = [text for text in texts_of(driver, "#state-tree .leaf") if text.startswith("total:")]
        check("total: -10.00 (-1000)" in totals, f"amounts in cents show as the app prints them, the stored number beside ({totals})")
        # A value's history: every action that changed cart.total, as rewind blame lists them.
        blame = json.loads(subprocess.run([REWIND, "blame", demo, "--path", "cart.total", "--session", "1", "--json"], cwd=WORK,
                                          check=True, capture_output=True, text=True).stdout)
        cart_total = driver.find_element(By.CSS_SELECTOR, 'button.history[aria-label="history of cart.total"]')
        cart_total.click()
        wait_text(driver, "#state-history", f"cart.total: changed by {len(blame['changes'])} of {blame['eventsReplayed']} actions")
        rows = texts_of(driver, "#state-history tr")
        check(len(rows) == len(blame["changes"]) and "seq 12" in rows[5] and "4900 \u2192 -1000" in rows[5],
              f"a value's history lists every change, old to new, as rewind blame does ({rows[:6]})")
        shot(driver, "history")
        driver.find_element(By.XPATH, "//div[@id='state-history']//a[text()='seq 9']").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="9"].selected')))
        check(True, "a change's seq selects that event")
        # Why seq 9 happened (rewind why): the payment result, caused by the tap on pay at seq 8.
        why = json.loads(subprocess.run([REWIND, "why", demo, "--at", "9", "--json"], cwd=WORK,
                                        check=True, capture_output=True, text=True).stdout)
        tab(driver, "event")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#why ol.chain li.this")))
        steps = texts_of(driver, "#why ol.chain li")
        check(len(steps) == len(why["chain"]) and [s.split(" ")[1] for s in steps] == [str(c["seq"]) for c in why["chain"]]
              and "the gesture" in steps[0], f"the event view shows the chain of causes rewind why prints ({steps})")
        shot(driver, "why")
        driver.find_element(By.XPATH, f"//div[@id='why']//a[text()='seq {why['chain'][0]['seq']}']").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, f'.row[data-seq="{why["chain"][0]["seq"]}"].selected')))
        wait_text(driver, "#why", "nothing caused it")
        check(True, "a step's seq selects it; the gesture says nothing caused it")
        # Collapsing the gesture hides what it led to (rewind log --caused-by), and only that.
        gesture = why["chain"][0]["seq"]
        led = [json.loads(line)["seq"] for line in subprocess.run([REWIND, "log", demo, "--caused-by", str(gesture), "--json"], cwd=WORK,
                                                                 check=True, capture_output=True, text=True).stdout.splitlines()]
        followers = [seq for seq in led if seq != gesture]
        check(9 in followers, f"the tap on pay led to its payment result ({led})")
        before = [int(seq) for seq in texts_of(driver, ".row .seq")]
        driver.find_element(By.ID, "collapse-gesture").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, f'.row[data-seq="{gesture}"] button.fold[aria-label="show what seq {gesture} led to"]')))
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, '.row[data-seq="9"]'))
        after = [int(seq) for seq in texts_of(driver, ".row .seq")]
        check(gesture in after and not set(followers) & set(after)
              and all(seq in after for seq in before if seq not in followers and seq <= max(after)),
              f"collapsed, the timeline leaves out exactly what seq {gesture} led to ({followers})")
        check(text_of(driver, f'.row[data-seq="{gesture}"] button.fold') == "\u25b8", "the gesture's row folds like a tree node")
        shot(driver, "collapsed")
        driver.find_element(By.CSS_SELECTOR, f'.row[data-seq="{gesture}"] button.fold').click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="9"]')))
        check(True, "expanding it brings them back")
        tab(driver, "state")
        field = driver.find_element(By.ID, "jump-seq")
        field.clear()
        field.send_keys("12")
        field.submit()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="12"].selected')))
        shot(driver, "state")

        # Stepping with the keyboard.
        driver.execute_script("document.getElementById('rows').focus()")
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys("j")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="13"].selected')))
        body.send_keys(Keys.ARROW_RIGHT)
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="14"].selected')))
        body.send_keys("k")
        body.send_keys(Keys.ARROW_LEFT)
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="12"].selected')))
        print("ok: j and → step forward, k and ← back")
        field = driver.find_element(By.ID, "jump-seq")
        field.clear()
        field.send_keys("1")
        field.submit()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="1"].selected')))

        # The invariant: run it, land on seq 12.
        tab(driver, "bisect")
        driver.find_element(By.CSS_SELECTOR, 'button[data-invariant="non-negative-total"]').click()
        wait_text(driver, "#bisect-result", "first at seq 12")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="12"].selected')))
        check(len(driver.find_elements(By.CSS_SELECTOR, "#marks i.bad")) == 1, "the timeline's strip marks where the invariant breaks")
        shot(driver, "invariant")

        # From bug to test.
        driver.find_element(By.XPATH, "//div[@id='bisect-result']//button[contains(., 'Shrink')]").click()
        wait_text(driver, "#bisect-result", "NonNegativeTotalTests.swift", timeout=60)
        links = [a.get_attribute("download") for a in driver.find_elements(By.CSS_SELECTOR, "#shrink-result a[download]")]
        check(links == ["rewind-demo-non-negative-total.rewind", "NonNegativeTotalTests.swift"], f"the fixture and the test are offered for download ({links})")
        check("assertInvariant(\"non-negative-total\"" in text_of(driver, "#shrink-result pre"), "the test replays the fixture with assertInvariant")
        shot(driver, "shrink")

        # What-if: leave out seq 11 (the discount).
        box = driver.find_element(By.CSS_SELECTOR, '.row[data-seq="11"] input[type="checkbox"]')
        box.click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '.row[data-seq="11"].skipped')))
        tab(driver, "whatif")
        check("seq 11" in text_of(driver, "#whatif-skipped"), "the what-if panel lists seq 11")
        driver.find_element(By.ID, "whatif-through").send_keys("12")
        driver.find_element(By.ID, "whatif-run").click()
        wait_text(driver, "#whatif-result", "after seq 12 without them")
        minus = texts_of(driver, "#whatif-diff .minus")
        check(any("total: -1000" in line for line in minus), "without seq 11 the total after seq 12 is no longer -1000")
        shot(driver, "whatif")

        # Verify.
        tab(driver, "verify")
        driver.find_element(By.ID, "verify-run").click()
        wait_text(driver, "#verify-result", "Reproduced", timeout=60)
        reproduced = len(driver.find_elements(By.CSS_SELECTOR, "#marks i.reproduced"))
        check(reproduced == 2, f"the strip marks both recorded snapshots as reproduced ({reproduced})")
        shot(driver, "verify")

        tab(driver, "sessions")
        wait_text(driver, "#stats", "Actions per case")
        check("closed" in text_of(driver, "#sessions table"), "the sessions table says the demo's session ended closed")
        shot(driver, "sessions")

        # A session that crashed: the table says so, with the signal (its mark as a store keeps it).
        crashed = os.path.join(WORK, "crashed.rewind")
        shutil.copyfile(demo, crashed)
        database = sqlite3.connect(crashed)
        mark = ('{"address":16,"buildID":"00","code":1,"image":"/app/Shop","imageOffset":4660,"instruction":1,'
                '"lastSeq":60,"processID":7,"signal":11,"signalName":"SIGSEGV","time":1795813821.5,"uncommitted":3}')
        database.execute("UPDATE sessions SET ending = 'crashed', crash = ?", (mark,))
        database.commit()
        database.close()
        driver.get(serve(crashed))
        tab(driver, "sessions")
        wait_text(driver, "#sessions table", "crashed (SIGSEGV)")
        title = attribute_of(driver, "//td[text()='crashed (SIGSEGV)']", "title")
        check("Shop+0x1234" in title and "3 action(s)" in title, "the crash's place and loss are in the cell's title")

        # Drift: the same log, as if recorded before the cart's `clear` case existed.
        check(not driver.find_element(By.ID, "drift").is_displayed(), "a log recorded with today's types shows no drift")
        drifted = os.path.join(WORK, "drifted.rewind")
        shutil.copyfile(demo, drifted)
        database = sqlite3.connect(drifted)
        for (row, shape) in database.execute("SELECT id, shape FROM type_shapes").fetchall():
            earlier = shape.replace('{"fields":[],"name":"clear"},', "").replace(',{"fields":[],"name":"clear"}', "")
            database.execute("UPDATE type_shapes SET shape = ? WHERE id = ?", (earlier, row))
        database.commit()
        database.close()
        driver.get(serve(drifted))
        wait_text(driver, "#drift", "CartAction: case `clear` added")
        check("session 1: ShopAction changed since recorded at action schema version 1" in text_of(driver, "#drift"),
              "the drift names the session, the type and the recorded version")
        check("bump actionSchemaVersion to 2" in text_of(driver, "#drift"), "and says what to do")
        shot(driver, "drift")

        # Live: follow a log while a recorder appends to it.
        live = os.path.join(WORK, "live.rewind")
        for suffix in ["", "-wal", "-shm"]:
            if os.path.exists(live + suffix):
                os.remove(live + suffix)
        # Its "flushed SEQ" lines go to a file (a pipe nobody reads would fill and stop it).
        flushes = os.path.join(WORK, "live.flushes")
        with open(flushes, "w") as output:
            recorder = subprocess.Popen([STRESS, "record", "--log", live], cwd=WORK, stdout=output)
        children.append(recorder)
        deadline = time.time() + 30
        while os.path.getsize(flushes) == 0 and time.time() < deadline:
            time.sleep(0.1)  # until the first flush: the log has a session and events
        driver.get(serve(live))
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".row.selected")))
        driver.find_element(By.ID, "follow").click()
        # The selection follows the tail: it never moves back, and it moves
        # forward at least twice (samples between two polls may repeat).
        def advanced_twice(seen):
            return len(set(seen)) >= 3
        deadline = time.time() + 30
        seen = []
        while time.time() < deadline and not advanced_twice(seen):
            time.sleep(1)
            # Read in one script: the rows are rebuilt as the tail moves.
            selected = driver.execute_script("return document.querySelector('.row.selected')?.dataset.seq")
            if selected:
                seen.append(int(selected))
        check(advanced_twice(seen) and seen == sorted(seen),
              f"following the tail selects ever newer events while the recorder appends ({seen})")
        shot(driver, "live")

        # A long call: verify over the live log once it holds 100,000 actions (about a second of
        # work in a debug build) runs as a job; the page shows its progress in the status line
        # while it polls, then the answer. The log is served anew with --answer-within 0.1, so
        # that a call becomes a job after a tenth of a second: how long verify takes depends on
        # the machine and on how fast the codec decodes, and a job is what is tested here.
        def flushed():
            with open(flushes) as lines:
                marks = [int(line.split()[1]) for line in lines if line.startswith("flushed ")]
            return marks[-1] if marks else 0
        deadline = time.time() + 120
        while flushed() < 100_000 and time.time() < deadline:
            time.sleep(0.5)
        recorder.kill()
        recorder.wait()
        driver.get(serve(live, "--answer-within", "0.1"))
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".row[data-seq]")))
        tab(driver, "verify")
        driver.find_element(By.ID, "verify-run").click()
        progress = []
        deadline = time.time() + 180
        while time.time() < deadline and "Reproduced" not in text_of(driver, "#verify-result"):
            line = text_of(driver, "#status")
            if re.match(r"verify: .*seq \d+ of \d+ \(\d+%\) · \d+ s", line):
                progress.append(line)
            time.sleep(0.1)
        check("Reproduced" in text_of(driver, "#verify-result"), "verify over the large live log answers")
        check(len(progress) >= 1, f"while it runs, the status line shows the job's progress ({progress[:3]})")
        shot(driver, "long-verify")

        # serve --session N opens the page on that session: a second session recorded into
        # the live log, and the page opened on it.
        first_end = flushed()
        subprocess.run([STRESS, "record", "--log", live, "--limit", "40"], cwd=WORK, check=True, stdout=subprocess.DEVNULL)
        url = serve(live, "--session", "2")
        check(url.endswith("#session=2"), f"the printed URL names the session ({url})")
        driver.get(url)
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".row.selected")))
        check(driver.find_element(By.ID, "f-session").get_attribute("value") == "2", "the session filter is set to session 2")
        seqs = [int(row.get_attribute("data-seq")) for row in driver.find_elements(By.CSS_SELECTOR, ".row[data-seq]")]
        check(seqs and min(seqs) > first_end, f"only session 2's events are listed ({seqs[:3]}…, session 1 ended at {first_end})")

        reports_view(driver, demo)
    finally:
        driver.quit()
        for child in children:
            child.kill()
            child.wait()
    print("browser tests passed")


if __name__ == "__main__":
    main()
