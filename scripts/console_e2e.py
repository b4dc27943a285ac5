"""The web console in headless Chromium, against a live host.

Logs in with the master key, opens a class from the class list, filters it, edits a value (and
checks through the REST API, with the master key, that it is stored), adds a row and deletes it.
Each page's screenshot is written to the directory given. The host must hold the class `Todo`
with two objects: {"title": "Milk", "priority": 1} and {"title": "Bread", "priority": 3}.

Usage: console_e2e.py BASE_URL MASTER_KEY SCREENSHOT_DIRECTORY
Exits 0 when every step passed; prints the failing step and exits 1 otherwise.
"""

import json
import os
import sys
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

BASE, MASTER_KEY, SHOTS = sys.argv[1], sys.argv[2], sys.argv[3]
# Waits are for the page to reach a state, bounded so that a broken console fails, not hangs.
WAIT = 20


def rest(path):
    """A GET of the REST API with the master key (the app id is the tests' own, `app`)."""
    request = urllib.request.Request(
        BASE + path, headers={"X-LC-Id": "app", "X-LC-Key": MASTER_KEY + ",master"})
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        return json.load(response)


def todos(where=None):
    query = "?limit=100" + ("&where=" + urllib.parse.quote(json.dumps(where)) if where else "")
    return rest("/1.1/classes/Todo" + query)["results"]


def main():
    os.makedirs(SHOTS, exist_ok=True)
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"]:
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(driver, WAIT)
    step = "start"

    def shot(name):
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))

    try:
        step = "login page"
        driver.get(BASE + "/console")
        key = wait.until(EC.visibility_of_element_located((By.ID, "master-key")))
        shot("1-login")
        step = "log in"
        key.send_keys(MASTER_KEY)
        key.send_keys(Keys.ENTER)
        wait.until(EC.visibility_of_element_located((By.ID, "classes-view")))
        count_cell = (By.CSS_SELECTOR, '[data-count-of="Todo"]')
        wait.until(EC.text_to_be_present_in_element(count_cell, "2"))
        # The page holds no key: its cookie is HttpOnly, so its script can't read it.
        assert driver.execute_script("return document.cookie") == "", "the session cookie is readable by the page"
        shot("2-classes")

        step = "browse Todo"
        driver.find_element(By.CSS_SELECTOR, 'button[data-class-name="Todo"]').click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "count"), "2 objects"))
        shot("3-browser")

        step = "filter"
        where = driver.find_element(By.ID, "where")
        where.send_keys('{"priority": {"$gt": 2}}')
        where.send_keys(Keys.ENTER)
        wait.until(EC.text_to_be_present_in_element((By.ID, "count"), "1 objects match"))
        rows = driver.find_elements(By.CSS_SELECTOR, "#objects-table tbody tr")
        assert len(rows) == 1 and "Bread" in rows[0].text, [row.text for row in rows]
        shot("4-filtered")

        step = "edit a value"
        bread = todos({"title": "Bread"})[0]["objectId"]
        driver.find_element(By.CSS_SELECTOR, f'button[aria-label="Edit title of {bread}"]').click()
        value = wait.until(EC.visibility_of_element_located((By.ID, "edit-value")))
        shot("5-edit")
        value.clear()
        value.send_keys('"Rye bread"')
        driver.find_element(By.ID, "edit-save").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "Saved title"))
        stored = rest("/1.1/classes/Todo/" + bread)
        assert stored["title"] == "Rye bread", stored
        shot("6-edited")

        step = "add a row"
        driver.find_element(By.ID, "clear-filter").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "count"), "2 objects"))
        fields = driver.find_element(By.ID, "new-object")
        fields.clear()
        fields.send_keys('{"title": "Eggs", "priority": 2}')
        driver.find_element(By.CSS_SELECTOR, "#add-form button[type=submit]").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "count"), "3 objects"))
        eggs = todos({"title": "Eggs"})
        assert len(eggs) == 1 and eggs[0]["priority"] == 2, eggs
        shot("7-added")

        step = "delete a row"
        driver.find_element(By.CSS_SELECTOR, f'button[aria-label="Delete {eggs[0]["objectId"]}"]').click()
        wait.until(EC.alert_is_present()).accept()
        wait.until(EC.text_to_be_present_in_element((By.ID, "count"), "2 objects"))
        assert todos({"title": "Eggs"}) == [], "the row is still stored"
        shot("8-deleted")

        step = "log out"
        driver.find_element(By.ID, "logout").click()
        wait.until(EC.visibility_of_element_located((By.ID, "login-view")))
        shot("9-logged-out")
    except Exception as error:  # noqa: BLE001 - every failure is reported with its step
        try:
            shot("failed")
        except Exception:  # noqa: BLE001
            pass
        print(f"step '{step}' failed: {type(error).__name__}: {error}", flush=True)
        return 1
    finally:
        driver.quit()
    print("console end-to-end: every step passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
