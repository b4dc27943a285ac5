"""The web console in headless Chromium, against a live host, in one browser session.

Logs in with the master key, opens a class from the class list, filters it, edits a value (and
checks through the REST API, with the master key, that it is stored), adds a row and deletes it,
sees a file previewed, changes a field permission, views users and a role's users, invokes a
function in staging (as a user) and in production, promotes and rolls back, sets a variable and
a secret (never shown), sees a log line appear without reloading, and opens the metrics and the
timers and tasks. Each page's screenshot is written to the directory given.

The host must hold the class `Todo` with two objects ({"title": "Milk", "priority": 1} and
{"title": "Bread", "priority": 3}), a user `ada`, and the function `hello` (answering
"<version> <username or master>" and logging "hello from <version> for <who>"), its production
version 1 logged as v1 and staging's version 2 as v2 (ConsoleEndToEndTests sets this up).

Usage: console_e2e.py BASE_URL MASTER_KEY SCREENSHOT_DIRECTORY
Exits 0 when every step passed; prints the failing step and exits 1 otherwise.
"""

import json
import os
import struct
import sys
import urllib.parse
import urllib.request
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE, MASTER_KEY, SHOTS = sys.argv[1], sys.argv[2], sys.argv[3]
# Waits are for the page to reach a state, bounded so that a broken console fails, not hangs.
WAIT = 20


def rest(path, body=None, data=None, content_type="application/json"):
    """A request of the REST API with the master key (the app id is the tests' own, `app`):
    a GET, or a POST of `body` (JSON) or `data` (bytes)."""
    headers = {"X-LC-Id": "app", "X-LC-Key": MASTER_KEY + ",master"}
    if body is not None:
        data = json.dumps(body).encode()
    if data is not None:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(BASE + path, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        return json.load(response)


def square_png(size=48, rgb=(31, 95, 209)):
    """A square PNG of one colour: a file the data browser previews as an image."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes(rgb) * size for _ in range(size))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


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
        """The whole page: the window made as tall as the page (at most 4000 pixels) for the shot."""
        height, shown, chrome = driver.execute_script(
            "window.scrollTo(0, 0); const e = document.documentElement;"
            "return [e.scrollHeight, window.innerHeight, window.outerHeight - window.innerHeight]")
        taller = height > shown
        if taller:
            driver.set_window_size(1280, min(height, 4000) + max(chrome, 0) + 20)
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))
        if taller:
            driver.set_window_size(1280, 900)

    def nav(view, ready):
        """Opens a page from the navigation, by keyboard, and waits for `ready` in it."""
        driver.find_element(By.ID, "nav-" + view).send_keys(Keys.ENTER)
        wait.until(EC.visibility_of_element_located((By.ID, view + "-view")))
        return wait.until(EC.presence_of_element_located(ready))

    def select_value(element_id, value):
        # The page fills its lists from the API after it is drawn: the option may come later
        # than the list on a busy machine.
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, f'#{element_id} option[value="{value}"]')))
        Select(driver.find_element(By.ID, element_id)).select_by_value(value)

    def invoke(function, user, environment):
        for element_id, value in [("invoke-function", function), ("invoke-params", "{}"), ("invoke-user", user)]:
            field = driver.find_element(By.ID, element_id)
            field.clear()
            field.send_keys(value)
        select_value("invoke-environment", environment)
        driver.execute_script("document.getElementById('invoke-outcome').textContent = ''")
        driver.find_element(By.ID, "invoke-run").click()

    def set_variable(name, value, secret):
        driver.find_element(By.ID, "variable-name").send_keys(name)
        if secret:
            driver.find_element(By.ID, "variable-secret").click()
        driver.find_element(By.ID, "variable-value").send_keys(value)
        driver.find_element(By.ID, "variable-value").send_keys(Keys.ENTER)
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "Set " + name))
        if secret:
            driver.find_element(By.ID, "variable-secret").click()

    try:
        step = "login page"
        driver.get(BASE + "/console")
        key = wait.until(EC.visibility_of_element_located((By.ID, "master-key")))
        shot("01-login")
        step = "log in"
        key.send_keys(MASTER_KEY)
        key.send_keys(Keys.ENTER)
        wait.until(EC.visibility_of_element_located((By.ID, "classes-view")))
        count_cell = (By.CSS_SELECTOR, '[data-count-of="Todo"]')
        wait.until(EC.text_to_be_present_in_element(count_cell, "2"))
        # The page holds no key: its cookie is HttpOnly, so its script can't read it.
        assert driver.execute_script("return document.cookie") == "", "the session cookie is readable by the page"
        shot("02-classes")

        step = "browse Todo"
        driver.find_element(By.CSS_SELECTOR, 'button[data-class-name="Todo"]').click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "count"), "2 objects"))
        shot("03-browser")

        step = "filter"
        where = driver.find_element(By.ID, "where")
        where.send_keys('{"priority": {"$gt": 2}}')
        where.send_keys(Keys.ENTER)
        wait.until(EC.text_to_be_present_in_element((By.ID, "count"), "1 objects match"))
        rows = driver.find_elements(By.CSS_SELECTOR, "#objects-table tbody tr")
        assert len(rows) == 1 and "Bread" in rows[0].text, [row.text for row in rows]
        shot("04-filtered")

        step = "edit a value"
        bread = todos({"title": "Bread"})[0]["objectId"]
        driver.find_element(By.CSS_SELECTOR, f'button[aria-label="Edit title of {bread}"]').click()
        value = wait.until(EC.visibility_of_element_located((By.ID, "edit-value")))
        shot("05-edit")
        value.clear()
        value.send_keys('"Rye bread"')
        driver.find_element(By.ID, "edit-save").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "Saved title"))
        stored = rest("/1.1/classes/Todo/" + bread)
        assert stored["title"] == "Rye bread", stored
        shot("06-edited")

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
        shot("07-added")

        step = "delete a row"
        driver.find_element(By.CSS_SELECTOR, f'button[aria-label="Delete {eggs[0]["objectId"]}"]').click()
        wait.until(EC.alert_is_present()).accept()
        wait.until(EC.text_to_be_present_in_element((By.ID, "count"), "2 objects"))
        assert todos({"title": "Eggs"}) == [], "the row is still stored"
        shot("08-deleted")

        step = "preview a file"
        uploaded = rest("/1.1/files/square.png", data=square_png(), content_type="image/png")
        rest("/1.1/classes/Todo", {"title": "Photo", "priority": 5,
                                   "picture": {"__type": "File", "objectId": uploaded["objectId"]}})
        driver.find_element(By.ID, "nav-classes").click()
        # The list is drawn again: its status comes after, so the button found is the new one.
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), " classes."))
        driver.find_element(By.CSS_SELECTOR, 'button[data-class-name="Todo"]').click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "count"), "3 objects"))
        image = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#objects-table img.preview")))
        wait.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image) == 48)
        shot("09-file-preview")

        step = "change a field permission"
        nav("schema", (By.CSS_SELECTOR, "#field-permissions-table tr"))
        select_value("schema-class", "Todo")
        hidden = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, 'input[aria-label="Hidden: priority"]')))
        assert not hidden.is_selected(), "priority starts visible"
        hidden.send_keys(Keys.SPACE)
        driver.find_element(By.ID, "save-permissions").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "Saved the permissions of Todo"))
        stored = rest("/1.1/schemas/Todo/permissions")
        assert stored["schema"]["priority"]["hidden"] is True, stored
        assert driver.find_element(By.CSS_SELECTOR, 'input[aria-label="Hidden: priority"]').is_selected()
        shot("10-schema")

        step = "users and roles"
        ada = rest("/1.1/classes/_User?where=" + urllib.parse.quote(json.dumps({"username": "ada"})))["results"][0]
        rest("/1.1/roles", {"name": "editors", "ACL": {"*": {"read": True}},
                            "users": {"__op": "AddRelation", "objects": [
                                {"__type": "Pointer", "className": "_User", "objectId": ada["objectId"]}]}})
        nav("users", (By.CSS_SELECTOR, "#roles-table button"))
        wait.until(EC.text_to_be_present_in_element((By.ID, "users-table"), "ada"))
        driver.find_element(By.CSS_SELECTOR, 'button[aria-label="Show the users and roles of editors"]').click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "role-users-table"), "ada"))
        shot("11-users-roles")

        step = "invoke in staging as a user"
        nav("functions", (By.CSS_SELECTOR, "#functions-table button"))
        wait.until(EC.text_to_be_present_in_element((By.ID, "hooks-table"), "Note"))
        invoke("hello", ada["objectId"], "staging")
        wait.until(EC.text_to_be_present_in_element((By.ID, "invoke-outcome"), "Succeeded in staging as user"))
        assert driver.find_element(By.ID, "invoke-result").text == '"v2 ada"', driver.find_element(By.ID, "invoke-result").text
        assert "hello from v2 for ada" in driver.find_element(By.ID, "invoke-logs").text
        shot("12-invoke-staging")

        step = "invoke in production"
        invoke("hello", "", "production")
        wait.until(EC.text_to_be_present_in_element((By.ID, "invoke-outcome"), "Succeeded in production as the master key"))
        assert driver.find_element(By.ID, "invoke-result").text == '"v1 master"'
        assert "hello from v1 for master" in driver.find_element(By.ID, "invoke-logs").text
        shot("13-invoke-production")

        step = "promote"
        nav("deploys", (By.CSS_SELECTOR, '#deploy-environments li[data-environment="production"][data-version="1"]'))
        driver.find_element(By.ID, "promote").click()
        wait.until(EC.alert_is_present()).accept()
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "Promoted: production runs version 2"))
        assert rest("/1.1/functions/hello", {})["result"] == "v2 master"
        shot("14-promoted")

        step = "roll back"
        driver.find_element(By.ID, "rollback-production").click()
        wait.until(EC.alert_is_present()).accept()
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "Rolled back: production runs version 1"))
        assert rest("/1.1/functions/hello", {})["result"] == "v1 master"
        shot("15-rolled-back")

        step = "variables"
        nav("variables", (By.CSS_SELECTOR, "#variables-table tbody tr"))
        set_variable("GREETING", "hello there", secret=False)
        wait.until(EC.text_to_be_present_in_element((By.ID, "variables-table"), "hello there"))
        set_variable("API_TOKEN", "s3cr3t-value", secret=True)
        wait.until(EC.text_to_be_present_in_element((By.ID, "variables-table"), "API_TOKEN"))
        assert "s3cr3t-value" not in driver.page_source, "a secret reached the page"
        shot("16-variables")

        step = "a log line appears"
        nav("logs", (By.CSS_SELECTOR, "#log-lines li"))
        before = len(driver.find_elements(By.XPATH, '//ol[@id="log-lines"]/li[contains(., "hello from v1 for master")]'))
        rest("/1.1/functions/hello", {})
        wait.until(lambda d: len(d.find_elements(
            By.XPATH, '//ol[@id="log-lines"]/li[contains(., "hello from v1 for master")]')) > before)
        shot("17-logs")

        step = "metrics"
        rest("/1.1/engine/cloud-queue/tasks", {"function": "hello", "params": {}})
        nav("metrics", (By.CSS_SELECTOR, "#metrics-table button"))
        wait.until(EC.text_to_be_present_in_element((By.ID, "metrics-table"), "function hello (production)"))
        driver.find_element(By.CSS_SELECTOR, 'button[aria-label="Chart function hello (production)"]').click()
        # This minute counted the calls above: a marker on each chart that counted something.
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#metrics-charts svg.chart circle")))
        shot("18-metrics")

        step = "timers and tasks"
        rest("/1.1/engine/timers", {"name": "nightly", "function": "hello", "cron": "0 0 3 * * ?"})
        nav("queue", (By.CSS_SELECTOR, "#tasks-table tbody tr"))
        wait.until(EC.text_to_be_present_in_element((By.ID, "tasks-table"), "hello"))
        wait.until(EC.text_to_be_present_in_element((By.ID, "timers-table"), "cron 0 0 3 * * ?"))
        shot("19-queue")

        step = "log out"
        driver.find_element(By.ID, "logout").click()
        wait.until(EC.visibility_of_element_located((By.ID, "login-view")))
        shot("20-logged-out")
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
