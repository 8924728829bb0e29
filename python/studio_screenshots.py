"""The pictures of docs/studio.md: the designer with a refused drag, the live estimate after an
edit, a shot in flight, a game played to its end and recorded (the studio runs with --db), a rating.

Usage: python python/studio_screenshots.py [--peggle .build/release/peggle] [--level fortress] [--out docs/images]
                                           [--only designer,estimate,play,playtest,rate]
docs/studio.md's pictures are Fortress's (`--only designer,play,playtest,rate`) and, for the estimate's,
Upside Down's (`--level upside-down --only estimate`): every step runs either way (each starts from the
one before); --only says which are written.
Needs Debian's chromium and chromium-driver, and Selenium (python/requirements-test.txt).
"""
import argparse
import pathlib
import shutil
import subprocess
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[1]
PICTURES = ["designer", "estimate", "play", "playtest", "rate"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peggle", default=str(ROOT / ".build" / "release" / "peggle"))
    ap.add_argument("--level", default="fortress")
    ap.add_argument("--out", default=str(ROOT / "docs" / "images"))
    ap.add_argument("--only", default=",".join(PICTURES), help="the pictures to write, of " + ", ".join(PICTURES))
    args = ap.parse_args()
    only = args.only.split(",")
    if not set(only) <= set(PICTURES):
        ap.error(f"--only {args.only}: not among {', '.join(PICTURES)}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp) / "levels"
        shutil.copytree(ROOT / "Levels", folder)
        proc = subprocess.Popen([args.peggle, "studio", "--levels", str(folder), "--port", "0",
                                 "--db", str(pathlib.Path(tmp) / "studio.sqlite")], stdout=subprocess.PIPE, text=True)
        url = proc.stdout.readline().split()[2]
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium")
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,940", "--hide-scrollbars"):
            options.add_argument(arg)
        d = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
        try:
            wait = WebDriverWait(d, 60)
            d.get(url)
            wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
            d.find_element(By.CSS_SELECTOR, f'#level-list li[data-file="{args.level}.json"]').click()
            wait.until(lambda d: d.execute_script("return studio.file") == f"{args.level}.json")
            canvas = d.find_element(By.ID, "board")

            def save(name):
                if name in only:
                    d.save_screenshot(str(out / f"studio-{name}.png"))
            w, h = canvas.size["width"], canvas.size["height"]

            def at(x, y):
                return ActionChains(d).move_to_element_with_offset(canvas, round(x / 800 * w - w / 2), round(y / 600 * h - h / 2))

            # Drag a peg onto its nearest neighbour: refused, with the reason.
            a, b = d.execute_script("""
                const ps = studio.level.pegs.filter(p => p.shape !== 'brick');
                let best = null;
                for (const p of ps) for (const q of ps) if (p !== q) {
                  const dd = Math.hypot(p.x - q.x, p.y - q.y);
                  if (!best || dd < best[0]) best = [dd, p, q];
                }
                return [best[1], best[2]];""")
            at(a["x"], a["y"]).click_and_hold().perform()
            at((a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2).perform()
            at(b["x"], b["y"]).release().perform()
            wait.until(lambda d: d.find_element(By.ID, "message").text.startswith("refused"))
            save("designer")

            # An accepted drag (the same peg 6 units up, if free): the estimate follows the edit.
            asked = d.execute_script("return studio.estimateAsked")
            for dy in (-6, 6, -10, 10):
                at(a["x"], a["y"]).click_and_hold().perform()
                at(a["x"], a["y"] + dy / 2).perform()
                at(a["x"], a["y"] + dy).release().perform()
                time.sleep(0.3)
                if d.execute_script("return studio.estimateAsked") > asked:
                    break
            wait.until(lambda d: d.execute_script("return studio.estimateLevel === studio.text && studio.estimate !== null"))
            save("estimate")

            d.find_element(By.CSS_SELECTOR, '#modes button[data-mode="play"]').click()
            wait.until(lambda d: d.find_element(By.ID, "status").text == "playing")
            at(470, 300).click().perform()
            wait.until(lambda d: d.execute_script("return studio.game.shot !== null"))
            time.sleep(1.2)
            save("play")
            wait.until(lambda d: not d.execute_script("return studio.game.animating"))

            # Play to the end as a named player, aiming at an orange peg left each time: recorded.
            d.find_element(By.ID, "player").send_keys("Ada")
            while d.execute_script("return studio.game.state.status") == "playing":
                x, y = d.execute_script("""
                    const left = studio.game.state.pegs.filter(p => p.kind === 'orange' && !p.removed).map(p => p.id);
                    const p = studio.level.pegs.find(q => q.id === left[0]);
                    return [p.x, p.y];""")
                taken = d.execute_script("return studio.game.state.shots_taken")
                at(x, y).click().perform()
                wait.until(lambda d: d.execute_script("return studio.game.state.shots_taken > %d && !studio.game.animating" % taken))
            wait.until(lambda d: d.find_element(By.ID, "record").text.startswith(("Recorded", "Not recorded")))
            save("playtest")

            d.find_element(By.CSS_SELECTOR, '#modes button[data-mode="rate"]').click()
            budget = d.find_element(By.ID, "budget")
            budget.send_keys(Keys.CONTROL, "a")
            budget.send_keys("32")
            d.find_element(By.ID, "rate").click()
            WebDriverWait(d, 600).until(lambda d: d.find_elements(By.ID, "tier"))
            save("rate")
        finally:
            d.quit()
            proc.terminate()
            proc.wait(timeout=10)
    print("wrote", ", ".join(str(out / f"studio-{n}.png") for n in PICTURES if n in only))



if __name__ == "__main__":
    main()
