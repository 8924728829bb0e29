"""Peggle Studio end to end in a real browser: Debian's chromium driven by its chromedriver through
Selenium (nothing downloads a browser). Draws a level, watches the live estimate follow the edits,
sees a refused drag, saves it and reads the file back with the CLI (the estimate is `peggle
estimate`'s), fires a shot, and rates the level, checking the browser's tier against `peggle rate`
+ `peggle report` on the same file. Then, with `--db`, a person plays a game to its end and finds
it in the database and in `peggle report`'s humans.csv and report.html.

Set PEGGLE_STUDIO_SCREENSHOTS=DIR to keep screenshots of the designer, a shot in flight and a
rating (docs/studio.md's pictures come from there)."""
import csv
import html
import http.server
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ROOT

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")


def serve(peggle_bin, folder, *more):
    """A running `peggle studio` on `folder`: the process and its URL."""
    proc = subprocess.Popen([peggle_bin, "studio", "--levels", str(folder), "--port", "0", "--threads", "2", *more],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("Peggle Studio: http://127.0.0.1:"), line + proc.stderr.read()
    return proc, line.split()[2]


def stop(proc):
    proc.terminate()
    proc.wait(timeout=10)
    proc.stdout.close()
    proc.stderr.close()


@pytest.fixture
def studio(peggle_bin, tmp_path):
    """A running `peggle studio` on an empty folder, and its URL."""
    folder = tmp_path / "levels"
    proc, url = serve(peggle_bin, folder)
    try:
        yield url, folder
    finally:
        stop(proc)


def chromium(*more):
    """Headless chromium under Selenium, with more command-line switches."""
    assert CHROMIUM and CHROMEDRIVER, "the browser tests need Debian's chromium and chromium-driver (scripts/test installs them)"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000", *more):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.fixture
def browser():
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()


def shot(driver, name):
    folder = os.environ.get("PEGGLE_STUDIO_SCREENSHOTS")
    if folder:
        pathlib.Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(pathlib.Path(folder) / f"{name}.png"))


def at(driver, x, y):
    """An action chain with the pointer at board point (x, y) on the canvas."""
    canvas = driver.find_element(By.ID, "board")
    w, h = canvas.size["width"], canvas.size["height"]
    # Selenium 4 offsets are from the element's centre.
    return ActionChains(driver).move_to_element_with_offset(canvas, round(x / 800 * w - w / 2), round(y / 600 * h - h / 2))


def js(driver, expression):
    return driver.execute_script("return " + expression)


def open_studio(driver, url):
    """Loads the page and waits until it is ready; returns the wait the tests use."""
    wait = WebDriverWait(driver, 30)
    driver.get(url)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
    return wait


def test_design_play_and_rate_in_the_browser(studio, browser, peggle_bin, tmp_path):
    url, folder = studio
    d = browser
    wait = open_studio(d, url)

    # A new level has no orange peg yet: no estimate, and why.
    estimate = d.find_element(By.ID, "estimate")
    wait.until(lambda d: estimate.text != "")
    assert estimate.text == "the level cannot be estimated yet: pegs: a classic level needs at least one orange peg"

    # Three pegs: two orange, one blue. After each accepted edit the estimate is the edited level's.
    targets = (("orange", 400, 150), ("orange", 300, 300), ("blue", 500, 300))
    seen = []
    for k, (kind, x, y) in enumerate(targets):
        d.find_element(By.CSS_SELECTOR, f'#palette button[data-tool="{kind}"]').click()
        at(d, x, y).click().perform()
        wait.until(lambda d: js(d, "studio.level.pegs.length") == k + 1)
        wait.until(lambda d: js(d, "studio.estimate !== null && studio.estimateLevel === studio.text"))
        seen.append(js(d, "studio.estimate"))
        assert estimate.text.startswith(f"Estimate: {seen[-1]['tier']} — sigma50 about "), estimate.text
    # Each edit's estimate is its own level's, interval included (a level this plain can sit at
    # the range's end, sigma50 1, on both sides of an edit while its interval moves).
    assert seen[1] != seen[0] and seen[2] != seen[1], "each edit changes the estimate"
    pegs = js(d, "studio.level.pegs")
    assert [(p["id"], p["kind"]) for p in pegs] == [(1, "orange"), (2, "orange"), (3, "blue")]
    # A click lands on the pixel nearest the point: within a board unit of it.
    for p, (_, x, y) in zip(pegs, targets):
        assert abs(p["x"] - x) <= 1 and abs(p["y"] - y) <= 1, p

    # Drag the blue peg onto an orange one: refused with the CLI's reason; nothing moves.
    d.find_element(By.CSS_SELECTOR, '#palette button[data-tool="select"]').click()
    at(d, 500, 300).click_and_hold().perform()
    at(d, 400, 300).perform()
    at(d, 302, 300).release().perform()
    wait.until(lambda d: d.find_element(By.ID, "message").text != "")
    message = d.find_element(By.ID, "message")
    assert message.text == "refused: peg 3 would overlap peg 2"
    assert message.get_attribute("class") == "error"
    shot(d, "designer")
    assert js(d, "studio.level.pegs") == pegs

    # Name it and save; the file is the studio's text, and the CLI reads the same level.
    name = d.find_element(By.CSS_SELECTOR, "#settings [name=name]")
    name.send_keys(Keys.CONTROL, "a")  # not clear(): an empty name is refused, and the field restored
    name.send_keys("Browser Test\t")
    wait.until(lambda d: js(d, "studio.level.name") == "Browser Test")
    d.find_element(By.ID, "save").click()
    wait.until(lambda d: d.find_element(By.ID, "message").text.startswith("saved"))
    assert d.find_element(By.ID, "message").text == "saved browser-test.json"
    path = folder / "browser-test.json"
    assert path.read_text() == js(d, "studio.text")
    info = json.loads(subprocess.run([peggle_bin, "level", "info", str(path), "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    assert (info["name"], info["pegs"], info["kinds"]["orange"], info["kinds"]["blue"], info["read_only"]) == \
        ("Browser Test", 3, 2, 1, False)
    # The page's estimate is `peggle estimate`'s for the saved file.
    cli = json.loads(subprocess.run([peggle_bin, "estimate", str(path), "--json"], check=True,
                                    capture_output=True, text=True).stdout)[0]
    shown = js(d, "studio.estimate")
    assert (shown["sigma50"], shown["low"], shown["high"], shown["tier"]) == \
        (cli["sigma50"], cli["sigma50_low"], cli["sigma50_high"], cli["tier"])

    # Play: aim straight down at the orange peg below the cannon and fire.
    d.find_element(By.CSS_SELECTOR, '#modes button[data-mode="play"]').click()
    wait.until(lambda d: d.find_element(By.ID, "status").text == "playing")
    assert d.find_element(By.ID, "score").text == "0"
    at(d, 400, 300).click().perform()
    wait.until(lambda d: js(d, "studio.game.shot !== null"))
    time.sleep(0.4)
    shot(d, "play")
    wait.until(lambda d: js(d, "!studio.game.animating"))
    assert js(d, "studio.game.shot.angle") == 0
    assert js(d, "studio.game.shot.lit.map(l => l.id)")[0] == 1
    assert js(d, "studio.game.shot.paths[0].xy.length") > 100
    score = js(d, "studio.game.state.score")
    assert score > 0
    assert d.find_element(By.ID, "score").text == f"{score:,}"

    # Rate with a small budget: the tier is the one `peggle rate` and `peggle report` give the file.
    d.find_element(By.CSS_SELECTOR, '#modes button[data-mode="rate"]').click()
    budget = d.find_element(By.ID, "budget")
    budget.send_keys(Keys.CONTROL, "a")
    budget.send_keys("8")
    d.find_element(By.ID, "rate").click()
    WebDriverWait(d, 300).until(lambda d: d.find_elements(By.ID, "tier"))
    shot(d, "rate")
    db, out = tmp_path / "rate.sqlite", tmp_path / "report"
    subprocess.run([peggle_bin, "rate", str(path), "--db", str(db), "--agents", "random,greedy", "--budget", "8",
                    "--threads", "2"], check=True, capture_output=True)
    subprocess.run([peggle_bin, "report", "--db", str(db), "--out", str(out), "--format", "csv"], check=True, capture_output=True)
    with open(out / "difficulty.csv") as f:
        row = next(csv.DictReader(f))
    assert d.find_element(By.ID, "tier").text.lower() == row["tier"]
    assert js(d, "studio.rating.games") == int(row["random_games"]) + int(row["greedy_games"])

    # Tune the saved file to very hard on the same budget: ten balls and three pegs stay easy
    # within the dial's default 6 edits and 6 ratings, so the page says so and nothing is written.
    d.find_element(By.CSS_SELECTOR, '#tune-tier option[value="very-hard"]').click()
    d.find_element(By.ID, "tune").click()
    head = WebDriverWait(d, 300).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#tuning p[class^=tune-]"))[0]
    assert head.text == "browser-test.json: not reached: no rated level within 6 edits and 6 ratings is very hard; nothing written"
    # The rated level nearest very hard had three balls fewer: the edits the route reported.
    assert [r.find_element(By.TAG_NAME, "td").text for r in d.find_elements(By.CSS_SELECTOR, "#tuning tr")[1:]] == ["before", "nearest"]
    assert [li.text for li in d.find_elements(By.CSS_SELECTOR, "#tuning li")] == [
        "balls 10 -> 9 (estimate 0.924)", "balls 9 -> 8 (estimate 0.785)", "balls 8 -> 7 (estimate 0.652)"]
    assert sorted(p.name for p in folder.iterdir()) == ["browser-test.json"]


# One orange peg straight below the cannon and one ball: the first shot straight down wins.
def test_the_mode_form_comes_from_the_config(studio, browser):
    """The settings form's mode choice and fields are built from /api/config's table of mode
    fields; changing the mode shows that mode's fields with its defaults, and an edited field
    changes the level (by its level-format name), or is refused with validation's message."""
    url, _ = studio
    d = browser
    wait = open_studio(d, url)
    config = js(d, "studio.config")
    select = d.find_element(By.CSS_SELECTOR, '#settings select[name="mode"]')
    options = [(o.get_attribute("value"), o.text) for o in select.find_elements(By.TAG_NAME, "option")]
    assert options == [(m["name"], m["label"]) for m in config["modes"]]
    inputs = d.find_elements(By.CSS_SELECTOR, "#settings input[data-mode-field]")
    assert [i.get_attribute("data-mode-field") for i in inputs] == [f["name"] for m in config["modes"] for f in m["fields"]]

    def shown():
        """The visible mode fields: name, label, value, min, max, step."""
        out = []
        for i in d.find_elements(By.CSS_SELECTOR, "#settings input[data-mode-field]"):
            if i.is_displayed():
                label = i.find_element(By.XPATH, "..").text.strip()
                out.append((i.get_attribute("data-mode-field"), label, i.get_attribute("value"),
                            i.get_attribute("min"), i.get_attribute("max"), i.get_attribute("step")))
        return out

    assert shown() == [("balls", "Balls", "10", "1", "99", "1")]
    select.find_element(By.CSS_SELECTOR, 'option[value="beat_the_score"]').click()
    wait.until(lambda d: js(d, "studio.level.mode.type") == "beat_the_score")
    assert shown() == [("target_score", "Target score", "50000", "1", "100000000", "1"),
                       ("time_limit", "Time limit (s)", "120", "1", "3600", "any")]
    limit = d.find_element(By.CSS_SELECTOR, 'input[data-mode-field="time_limit"]')
    # Typed over the selected value, as a person does (clearing the field first would send an
    # empty value, which the form answers by showing the level's value again).
    limit.send_keys(Keys.CONTROL, "a")
    limit.send_keys("90.5", Keys.TAB)
    wait.until(lambda d: js(d, "studio.level.mode.time_limit") == 90.5)
    assert js(d, "studio.level.mode") == {"type": "beat_the_score", "target_score": 50000, "time_limit": 90.5}
    shot(d, "mode-form")
    # Out of range: refused with the level format's message, and the form shows the level's value again.
    limit.send_keys(Keys.CONTROL, "a")
    limit.send_keys("5000", Keys.TAB)
    message = d.find_element(By.ID, "message")
    wait.until(lambda d: "time_limit" in message.text)
    assert message.text.endswith("mode: time_limit: 5000 is outside 1...3600 seconds"), message.text
    wait.until(lambda d: limit.get_attribute("value") == "90.5")
    assert js(d, "studio.level.mode.time_limit") == 90.5


ONE_SHOT = {"format": 1, "name": "One Shot", "mode": {"type": "classic", "balls": 1}, "power": "none",
            "pegs": [{"id": 1, "kind": "orange", "x": 400, "y": 300, "radius": 12}], "blocks": []}


# Holds the page's next estimate request until window.heldEstimate.release() is called; the
# others go straight through. `delivered` turns true once the held reply is handed to the page.
HOLD_NEXT_ESTIMATE = """
const realFetch = window.fetch;
window.heldEstimate = null;
window.fetch = function (url, options) {
  if (String(url).endsWith("/api/estimate") && window.heldEstimate === null) {
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    const held = { release, level: JSON.parse(options.body).level, delivered: false };
    window.heldEstimate = held;
    return realFetch(url, options).then((reply) => gate.then(() => { held.delivered = true; return reply; }));
  }
  return realFetch(url, options);
};
"""


def test_a_stale_estimate_never_overwrites_a_newer_one(studio, browser):
    """The designer edits faster than the estimate replies: the reply to an older level arrives
    after the newer one's, and the page keeps showing the newer level's estimate."""
    url, _ = studio
    d = browser
    wait = open_studio(d, url)
    estimate = d.find_element(By.ID, "estimate")

    def place(kind, x, y, count):
        d.find_element(By.CSS_SELECTOR, f'#palette button[data-tool="{kind}"]').click()
        at(d, x, y).click().perform()
        wait.until(lambda d: js(d, "studio.level.pegs.length") == count)

    place("orange", 400, 150, 1)
    wait.until(lambda d: js(d, "studio.estimate !== null && studio.estimateLevel === studio.text"))
    d.execute_script(HOLD_NEXT_ESTIMATE)
    # The second orange peg's estimate is held; the blue peg's goes through and is shown.
    place("orange", 300, 300, 2)
    wait.until(lambda d: js(d, "window.heldEstimate !== null"))
    held_level = js(d, "window.heldEstimate.level")
    place("blue", 500, 300, 3)
    wait.until(lambda d: js(d, "studio.estimate !== null && studio.estimateLevel === studio.text"))
    newest_level, newest, shown = js(d, "studio.text"), js(d, "studio.estimate"), estimate.text
    assert held_level != newest_level
    assert shown.startswith(f"Estimate: {newest['tier']} — sigma50 about "), shown

    # Now the older level's reply arrives: it is dropped.
    d.execute_script("window.heldEstimate.release()")
    wait.until(lambda d: js(d, "window.heldEstimate.delivered"))
    time.sleep(0.5)  # the page's handler runs on the reply's body, a few tasks later
    assert js(d, "studio.estimateLevel") == newest_level == js(d, "studio.text")
    assert js(d, "studio.estimate") == newest
    assert estimate.text == shown
    assert "pending" not in estimate.get_attribute("class")


def test_a_person_plays_a_game_to_its_end_and_finds_it_in_the_database_and_the_report(browser, peggle_bin, tmp_path):
    folder, db = tmp_path / "levels", tmp_path / "studio.sqlite"
    folder.mkdir()
    (folder / "one-shot.json").write_text(json.dumps(ONE_SHOT))
    proc, url = serve(peggle_bin, folder, "--db", str(db))
    try:
        d = browser
        wait = open_studio(d, url)
        d.find_element(By.CSS_SELECTOR, '#level-list li[data-file="one-shot.json"]').click()
        wait.until(lambda d: js(d, "studio.level.name") == "One Shot")
        d.find_element(By.CSS_SELECTOR, '#modes button[data-mode="play"]').click()
        wait.until(lambda d: d.find_element(By.ID, "status").text == "playing")
        assert d.find_element(By.ID, "record").text == "Finished games are recorded under the player's name."
        d.find_element(By.ID, "player").send_keys("Ada Tester")
        seed = js(d, "studio.game.seed")
        assert 0 <= seed < 2 ** 53
        at(d, 400, 400).click().perform()
        wait.until(lambda d: js(d, "studio.recorded !== null"))
        wait.until(lambda d: js(d, "!studio.game.animating"))
        assert d.find_element(By.ID, "status").text == "won"
        fired = js(d, "studio.game.angles")
        assert d.find_element(By.ID, "record").text == f"Recorded: won in 1 shot (seed {seed}) for Ada Tester."
        shot(d, "playtest")
        # The next game gets a new seed, so it is stored too.
        d.find_element(By.ID, "reset").click()
        wait.until(lambda d: js(d, "studio.game !== null && studio.game.state.shots_taken === 0"))
        assert js(d, "studio.game.seed") != seed
    finally:
        stop(proc)

    # In the database: the level, the seed, the shots, the outcome, a human agent with the name.
    with sqlite3.connect(db) as con:
        rows = con.execute("""SELECT a.kind, a.label, a.parameters, e.seed, e.sigma, e.shots, e.status, l.name, l.content_hash
                              FROM episode e JOIN agent a ON a.id = e.agent_id JOIN level l ON l.id = e.level_id""").fetchall()
        angles = con.execute("SELECT angle FROM shot").fetchall()
    assert len(rows) == 1
    kind, label, parameters, stored_seed, sigma, shots, status, name, level_hash = rows[0]
    assert (kind, label, json.loads(parameters), stored_seed, sigma, shots, status, name) == \
        ("human", "human(name=Ada Tester)", {"name": "Ada Tester"}, seed, 0, 1, "won", "One Shot")
    assert angles == [(a,) for a in fired]

    # Rate the same level into the same database (a small, cheap rating), then report: humans.csv
    # and report.html show the person's game beside the level's sigma50.
    subprocess.run([peggle_bin, "rate", str(folder / "one-shot.json"), "--db", str(db), "--agents", "greedy", "--budget", "8",
                    "--candidates", "8", "--refine", "1x2", "--samples", "2", "--threads", "2"], check=True, capture_output=True)
    out = tmp_path / "report"
    r = subprocess.run([peggle_bin, "report", "--db", str(db), "--out", str(out), "--min-human-games", "1"],
                       check=True, capture_output=True, text=True)
    assert "humans against sigma50: no rank correlation over 1 level with at least 1 human game " \
        "(it needs 3 levels, each side varying)" in r.stdout
    with open(out / "humans.csv") as f:
        humans = list(csv.DictReader(f))
    with open(out / "difficulty.csv") as f:
        rated = next(csv.DictReader(f))
    assert [(h["level"], h["level_hash"], h["human_games"], h["human_players"], h["human_wins"], h["human_win_rate"])
            for h in humans] == [("One Shot", level_hash, "1", "1", "1", "1")]
    assert (humans[0]["tier"], humans[0]["sigma50_relation"], humans[0]["sigma50_rad"]) == \
        (rated["tier"], rated["sigma50_relation"], rated["sigma50_rad"])
    assert rated["sigma50_rad"] != ""
    html = (out / "report.html").read_text()
    assert "Human playtests: <b>1</b> game by 1 player, 1 won: win rate <b>1.00</b>" in html


def test_the_rated_filter_keeps_the_levels_rated_in_the_database(browser, peggle_bin, tmp_path):
    """With --db the list filters by "rated or not": a level `peggle rate` rated into the database
    is rated, a level nobody rated is not."""
    folder, db = tmp_path / "levels", tmp_path / "studio.sqlite"
    folder.mkdir()
    (folder / "one-shot.json").write_text(json.dumps(ONE_SHOT))
    other = dict(ONE_SHOT, name="Other Shot", pegs=[dict(ONE_SHOT["pegs"][0], x=300)])
    (folder / "other-shot.json").write_text(json.dumps(other))
    subprocess.run([peggle_bin, "rate", str(folder / "one-shot.json"), "--db", str(db), "--agents", "greedy", "--budget", "8",
                    "--candidates", "8", "--refine", "1x2", "--samples", "2", "--threads", "2"], check=True, capture_output=True)
    proc, url = serve(peggle_bin, folder, "--db", str(db))
    try:
        d = browser
        wait = open_studio(d, url)
        items = "[...document.querySelectorAll('#level-list li')].map(li => li.dataset.file)"
        wait.until(lambda d: js(d, items) == ["one-shot.json", "other-shot.json"])
        assert d.find_element(By.ID, "list-rated").is_displayed()
        rated = "const s = document.getElementById('list-rated'); s.value = arguments[0]; s.onchange();"
        d.execute_script(rated, "true")
        wait.until(lambda d: js(d, items) == ["one-shot.json"])
        d.execute_script(rated, "false")
        wait.until(lambda d: js(d, items) == ["other-shot.json"])
        d.execute_script(rated, "")
        wait.until(lambda d: js(d, items) == ["one-shot.json", "other-shot.json"])
    finally:
        stop(proc)


# Another site's page (served from another port of 127.0.0.1, the nearest a foreign origin can
# be) trying to write into the studio the ways a browser lets it without asking: a form post
# (text/plain, shaped so its body is JSON), and `fetch` "simple requests" (no-cors, a text/plain,
# form or multipart body). A JSON fetch needs a CORS preflight, which the studio never approves.
ATTACK = """<!doctype html><title>another site</title>
<form id="form" method="POST" enctype="text/plain" target="sink" action="STUDIO/api/levels">
<input type="hidden" name="NAME" value="VALUE"></form>
<iframe name="sink" id="sink"></iframe>
<script>
const studio = STUDIO_JSON, writes = WRITES_JSON;
window.sent = null;
async function attack() {
  const sent = [];
  for (const [path, body] of writes) {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      try { await fetch(studio + path, {method: "POST", mode: "no-cors", headers: {"Content-Type": type}, body}); sent.push("sent"); }
      catch (e) { sent.push("failed"); }
    }
    try { await fetch(studio + path, {method: "POST", headers: {"Content-Type": "application/json"}, body}); sent.push("json answered"); }
    catch (e) { sent.push("json blocked"); }
  }
  document.getElementById("sink").onload = () => { window.sent = sent; };
  document.getElementById("form").submit();
}
attack();
</script>"""


def test_a_page_on_another_origin_cannot_write_and_a_rebound_name_cannot_read(peggle_bin, tmp_path):
    folder, db = tmp_path / "levels", tmp_path / "studio.sqlite"
    folder.mkdir()
    (folder / "one-shot.json").write_text(json.dumps(ONE_SHOT))
    before = sorted((p.name, p.read_text()) for p in folder.iterdir())
    proc, url = serve(peggle_bin, folder, "--db", str(db))
    studio = url.rstrip("/")
    port = int(studio.rsplit(":", 1)[1])
    intruder = dict(ONE_SHOT, name="Intruder")
    writes = [["/api/levels", json.dumps({"level": json.dumps(intruder)})],
              ["/api/levels", json.dumps({"level": json.dumps(intruder), "file": "one-shot.json"})],
              ["/api/games", json.dumps({"level": json.dumps(ONE_SHOT), "seed": 1, "angles": [0], "player": "Mallory"})]]
    # The form's body is NAME=VALUE: NAME opens the JSON and VALUE closes it.
    name = '{"level": ' + json.dumps(json.dumps(intruder)) + ', "pad": "'
    page = (ATTACK.replace("STUDIO_JSON", json.dumps(studio)).replace("WRITES_JSON", json.dumps(writes))
            .replace("STUDIO", studio).replace("NAME", html.escape(name)).replace("VALUE", html.escape('"}')))

    class Site(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    # The browser resolves rebound.test to 127.0.0.1, as a DNS-rebinding site's name would.
    d = chromium("--host-resolver-rules=MAP rebound.test 127.0.0.1")
    try:
        d.get(f"http://127.0.0.1:{site.server_address[1]}/")
        WebDriverWait(d, 30).until(lambda d: js(d, "window.sent") is not None)
        sent = js(d, "window.sent")
        # The simple requests went out (and were refused); the JSON ones never left the browser.
        assert sent == ["sent", "sent", "sent", "json blocked"] * 3, sent

        # Through a rebound name the studio's page and replies are refused: nothing to read.
        d.get(f"http://rebound.test:{port}/api/levels")
        text = d.find_element(By.TAG_NAME, "body").text
        assert f"refused: Host 'rebound.test:{port}' is not this studio's address" in text, text
        assert "one-shot.json" not in text

        # The same request from the studio's own page goes through: the check is not in the way.
        wait = open_studio(d, url)
        wait.until(lambda d: js(d, "document.querySelectorAll('#level-list li').length") == 1)
    finally:
        d.quit()
        site.shutdown()
        stop(proc)

    assert sorted((p.name, p.read_text()) for p in folder.iterdir()) == before
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM episode").fetchone() == (0,)
    # And what the refusals say, asked directly.
    proc, url = serve(peggle_bin, folder, "--db", str(db))
    try:
        request = urllib.request.Request(url + "api/levels", data=writes[0][1].encode(), method="POST",
                                         headers={"Content-Type": "text/plain"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request)
        assert refused.value.code == 403
        assert json.loads(refused.value.read())["error"].startswith(
            "refused: POST /api/levels needs Content-Type: application/json (given: 'text/plain')")
    finally:
        stop(proc)
    assert sorted((p.name, p.read_text()) for p in folder.iterdir()) == before


def test_the_level_list_pages_searches_and_sorts_on_the_server(browser, peggle_bin, tmp_path):
    """A folder of 205 generated levels: the list shows the first 200, the next page the other 5;
    the search box and the sort keep the page in step with the server's index; a level written
    outside the studio shows when the list is asked again."""
    folder = tmp_path / "levels"
    subprocess.run([peggle_bin, "level", "generate", "--count", "205", "--seed", "7", "--distribution", "easy",
                    "--out", str(folder)], check=True, stdout=subprocess.DEVNULL)
    files = sorted(p.name for p in folder.glob("*.json"))
    proc, url = serve(peggle_bin, folder)
    try:
        d = browser
        wait = open_studio(d, url)
        items = "[...document.querySelectorAll('#level-list li')].map(li => li.dataset.file)"
        wait.until(lambda d: js(d, items) == files[:200])
        assert d.find_element(By.ID, "list-count").text == "1–200 of 205"
        assert not d.find_element(By.ID, "list-next").get_property("disabled")
        d.find_element(By.ID, "list-next").click()
        wait.until(lambda d: js(d, items) == files[200:])
        assert d.find_element(By.ID, "list-count").text == "201–205 of 205"
        assert d.find_element(By.ID, "list-next").get_property("disabled")
        # A search goes back to the first page of what it finds (names hold the template).
        name = json.loads((folder / files[3]).read_text())["name"]
        d.find_element(By.ID, "list-search").send_keys(name)
        wait.until(lambda d: js(d, items) == [files[3]])
        assert d.find_element(By.ID, "list-count").text == "1–1 of 1 of 205"
        d.find_element(By.ID, "list-search").clear()
        d.find_element(By.ID, "list-search").send_keys(" ")  # an input event for the cleared box
        wait.until(lambda d: len(js(d, items)) == 200)
        # Reversed file order: the last file first.
        d.find_element(By.ID, "list-order").click()
        wait.until(lambda d: js(d, items)[:2] == files[::-1][:2])
        # Each level's estimated tier shows as it arrives behind the index; the server filters by it
        # (of the 205, `peggle estimate` puts 2 in hard).
        tiers = "[...document.querySelectorAll('#level-list li .tier')].map(s => s.textContent)"
        wait.until(lambda d: len(js(d, tiers)) == 200 and d.find_element(By.ID, "list-estimating").text == "")
        tier = "const s = document.getElementById('list-tier'); s.value = arguments[0]; s.onchange();"
        d.execute_script(tier, "hard")
        wait.until(lambda d: js(d, tiers) == ["hard", "hard"])
        assert d.find_element(By.ID, "list-count").text == "1–2 of 2 of 205"
        # Without --db no level is rated: the "rated or not" filter is not offered.
        assert not d.find_element(By.ID, "list-rated").is_displayed()
        d.execute_script(tier, "")
        wait.until(lambda d: len(js(d, items)) == 200)
        # Written outside the studio: shown on the next request (a sort change asks again).
        level = json.loads((folder / files[0]).read_text())
        level["name"] = "Zzz Written Outside"
        (folder / "zzz-outside.json").write_text(json.dumps(level))
        d.find_element(By.ID, "list-order").click()
        d.find_element(By.ID, "list-order").click()
        wait.until(lambda d: js(d, items)[0] == "zzz-outside.json")
        shot(d, "studio-level-list")
    finally:
        stop(proc)


def test_a_shared_studio_lets_a_playtester_with_its_link_play_and_record_and_refuses_others(peggle_bin, tmp_path):
    """`peggle studio --share` (docs/sharing.md): a playtester's browser, reaching the studio through
    a network name (`--host-resolver-rules` maps studio.lan to 127.0.0.1) by a link clicked on
    another site, plays a game to its end and records it under their name and browser session,
    but cannot save; a browser without the token, or with an earlier run's, is refused."""
    folder, db = tmp_path / "levels", tmp_path / "shared.sqlite"
    folder.mkdir()
    (folder / "one-shot.json").write_text(json.dumps(ONE_SHOT))
    before = sorted((p.name, p.read_text()) for p in folder.iterdir())
    proc = subprocess.Popen([peggle_bin, "studio", "--levels", str(folder), "--port", "0", "--threads", "2", "--share",
                             "--host", "127.0.0.1", "--allow-host", "studio.lan", "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first, second = proc.stdout.readline(), proc.stdout.readline()
    assert first.startswith("Peggle Studio: http://127.0.0.1:") and "the designer's link: every right" in first, first
    assert second.startswith("Playtesters: http://studio.lan:") and "play and record games only" in second, second
    designer_link, link = first.split()[2], second.split()[1]
    port = int(link.split(":")[2].split("/")[0])
    token = link.split("token=")[1]
    assert len(token) == 48 and designer_link.split("token=")[1] != token
    # The link, on another site's page (another origin), as a playtester gets it in a web mail.
    page = f'<!doctype html><title>mail</title><a id="go" href="{html.escape(link)}">play my levels</a>'.encode()

    class Site(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    rules = "--host-resolver-rules=MAP studio.lan 127.0.0.1"
    player, stranger = chromium(rules), chromium(rules)
    try:
        d = player
        d.get(f"http://127.0.0.1:{site.server_address[1]}/")
        d.find_element(By.ID, "go").click()
        wait = WebDriverWait(d, 30)
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
        assert d.current_url == f"http://studio.lan:{port}/"  # the token left the address bar
        cookies = {c["name"]: c for c in d.get_cookies()}
        assert cookies[f"peggle-studio-{port}"]["httpOnly"] and cookies[f"peggle-studio-{port}"]["sameSite"] == "Strict"
        assert js(d, "document.cookie") == ""  # HttpOnly: the page's scripts cannot read the token
        assert js(d, "studio.config.role") == "playtester"
        wait.until(lambda d: js(d, "studio.level.name") == "One Shot" and d.find_element(By.ID, "status").text == "playing")
        assert [b.text for b in d.find_elements(By.CSS_SELECTOR, "#modes button") if b.is_displayed()] == ["Play"]
        assert not any(d.find_element(By.ID, b).is_displayed() for b in ("new", "save", "saveas", "duplicate"))
        assert d.find_element(By.ID, "list-pager").is_displayed() and d.find_element(By.ID, "list-search").is_displayed()
        d.find_element(By.ID, "player").send_keys("Grace Playtester")
        seed = js(d, "studio.game.seed")
        at(d, 400, 400).click().perform()
        wait.until(lambda d: js(d, "studio.recorded !== null"))
        wait.until(lambda d: js(d, "!studio.game.animating"))
        assert d.find_element(By.ID, "status").text == "won"
        assert d.find_element(By.ID, "record").text == f"Recorded: won in 1 shot (seed {seed}) for Grace Playtester."
        shot(d, "playtester")
        # The page's own JSON requests to write a level are refused to a playtester.
        for path, body in [("/api/levels", "{level: studio.text, file: 'one-shot.json'}"), ("/api/levels", "{level: studio.text}"),
                           ("/api/edit", "{level: studio.text, op: {type: 'remove', id: 1}}"),
                           ("/api/levels/one-shot.json/tune", "{tier: 'hard'}")]:
            status = d.execute_async_script(f"""const done = arguments[0];
                fetch("{path}", {{method: "POST", headers: {{"Content-Type": "application/json"}}, body: JSON.stringify({body})}})
                  .then(async (r) => done([r.status, (await r.json()).error]));""")
            assert status == [403, f"refused: POST {path}: a playtester may only play and record games "
                              "(no save, edit, estimate, rate or tune); the designer's link has every right"], status

        # Another browser without the token is refused; with an earlier run's token too.
        s = stranger
        def refusal(url):
            s.get(url)
            return json.loads(s.find_element(By.TAG_NAME, "body").text)["error"]
        assert refusal(f"http://studio.lan:{port}/") == ("refused: GET / holds no token: this studio is shared (--share) "
                                                         "and answers only the links it printed (http://...?token=...)")
        assert refusal(f"http://studio.lan:{port}/?token={'0' * 48}").startswith("refused: the link's token is not this studio's")
        assert s.get_cookies() == []
        assert refusal(f"http://studio.lan:{port}/api/levels").startswith("refused: GET /api/levels holds no token")
    finally:
        player.quit()
        stranger.quit()
        site.shutdown()
        stop(proc)

    assert sorted((p.name, p.read_text()) for p in folder.iterdir()) == before
    with sqlite3.connect(db) as con:
        rows = con.execute("""SELECT a.label, e.seed, e.status, s.session FROM episode e JOIN agent a ON a.id = e.agent_id
                              LEFT JOIN game_session s ON s.episode_id = e.id""").fetchall()
    assert len(rows) == 1
    label, stored_seed, status, session = rows[0]
    assert (label, stored_seed, status) == ("human(name=Grace Playtester)", seed, "won")
    assert session is not None and len(session) == 32 and session == cookies[f"peggle-session-{port}"]["value"]


def test_stop_ends_a_rating_at_its_next_game_and_keeps_its_games(browser, peggle_bin, tmp_path):
    """Rate, then Stop as soon as games stream: the page says so and frees its buttons; the server
    stops the rating at its next game (the connection closed), so its run ends with the games
    played before it stored, far fewer than the rating's at most."""
    folder, db = tmp_path / "levels", tmp_path / "studio.sqlite"
    folder.mkdir()
    shutil.copy(ROOT / "Levels" / "fortress.json", folder / "fortress.json")
    proc, url = serve(peggle_bin, folder, "--db", str(db))
    try:
        d = browser
        wait = open_studio(d, url)
        wait.until(lambda d: js(d, "document.querySelectorAll('#level-list li').length") == 1)
        d.find_element(By.CSS_SELECTOR, '#level-list li[data-file="fortress.json"]').click()
        wait.until(lambda d: js(d, "studio.file") == "fortress.json")
        d.find_element(By.CSS_SELECTOR, '#modes button[data-mode="rate"]').click()
        assert not d.find_element(By.ID, "rate-stop").is_displayed()
        budget = d.find_element(By.ID, "budget")
        budget.send_keys(Keys.CONTROL, "a")
        budget.send_keys("160")
        d.find_element(By.ID, "rate").click()
        wait.until(lambda d: js(d, "document.getElementById('rate-progress').value") > 0)
        at_most = js(d, "document.getElementById('rate-progress').max")
        shot(d, "rate-stop")
        d.find_element(By.ID, "rate-stop").click()
        wait.until(lambda d: not d.find_element(By.ID, "rate").get_property("disabled"))
        assert d.find_element(By.ID, "message").text == ("Rating stopped; its games so far are kept in the database, "
                                                        "and rating again with the same seed resumes from them.")
        assert not d.find_element(By.ID, "rate-stop").is_displayed()
        assert d.find_element(By.ID, "rating").text == ""

        # The run ends (its row gets its end time) with the games played before the stop: far
        # fewer than the whole rating, which would store its at most (the rating keeps on for
        # about 20 s unstopped, inside this wait).
        deadline = time.monotonic() + 90
        while True:
            with sqlite3.connect(db) as con:
                ended = con.execute("SELECT finished_at, episodes_added FROM run WHERE command = 'studio rate'").fetchall()
                games = con.execute("SELECT COUNT(*) FROM episode").fetchone()[0]
            if ended and ended[0][0] is not None:
                break
            assert time.monotonic() < deadline, f"the rating did not end: {games} games stored"
            time.sleep(0.5)
        assert ended[0][1] == games
        assert 0 < games < at_most / 2, f"{games} of at most {at_most}"
    finally:
        stop(proc)
