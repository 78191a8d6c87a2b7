#!/usr/bin/env python3
"""The console in a real browser: headless Chromium driven by Selenium against the real api, the
services behind it and the APNs stand-in. Run by ConsoleBrowserTests.

Usage: console_check.py CONFIG
CONFIG is a JSON file: {"console": "http://127.0.0.1:P/console/", "admin_secret": "...",
  "p8": path of the stand-in's AuthKey.p8, "team_id", "key_id", "bundle_id",
  "apns_log": the stand-in's requests.jsonl, "pushctl": executable, "endpoint": the gateway's,
  "data_dir": the stack's data directory, "screenshots": directory to save a PNG of each page in}

Prints one line per step; exits 1 at the first failure, saying what was expected.
"""
import base64
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

CONFIG = json.load(open(sys.argv[1]))
BASE = CONFIG["console"].rstrip("/")
ROOT = BASE[: -len("/console")]
APP = "consoleapp"
XSS = "<img src=x onerror=alert(1)>"


def fail(message):
    print("FAILED: " + message, flush=True)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


def step(text):
    print(text, flush=True)


def pushctl(command, payload):
    out = subprocess.run([CONFIG["pushctl"], "--endpoint", CONFIG["endpoint"], "--data-dir", CONFIG["data_dir"], "--json",
                          "call", command, json.dumps(payload)], capture_output=True, text=True, timeout=30)
    try:
        reply = json.loads(out.stdout)
    except ValueError:
        fail(f"pushctl {command}: {out.stdout} {out.stderr}")
    expect(reply.get("code") == 0, f"pushctl {command}: {reply}")
    return reply


def http(method, path, body=None, headers=None):
    """One request outside the browser: (status, headers, JSON body or None)."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(ROOT + path, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            raw = response.read()
            return response.status, dict(response.headers), (json.loads(raw) if raw[:1] in (b"{", b"[") else raw)
    except urllib.error.HTTPError as error:
        raw = error.read()
        return error.code, dict(error.headers), (json.loads(raw) if raw[:1] in (b"{", b"[") else raw)


def apns_requests():
    try:
        return [json.loads(line) for line in open(CONFIG["apns_log"]) if line.strip()]
    except FileNotFoundError:
        return []


# -- the browser ------------------------------------------------------------------------------------

options = webdriver.ChromeOptions()
for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,1000"]:
    options.add_argument(flag)
options.binary_location = "/usr/bin/chromium"
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(30)
wait = WebDriverWait(driver, 30)
console_errors = []


def check_console(page):
    """The browser's console since the last check: nothing at SEVERE (errors, CSP violations, failed loads)."""
    for entry in driver.get_log("browser"):
        if entry["level"] == "SEVERE":
            console_errors.append(f"{page}: {entry['message']}")
    expect(not console_errors, f"the browser's console has errors: {console_errors}")


def no_alert(where):
    try:
        text = driver.switch_to.alert.text
        fail(f"a script ran on {where}: alert({text})")
    except NoAlertPresentException:
        pass


def visible(selector):
    return wait.until(lambda d: d.find_element(By.CSS_SELECTOR, selector) if d.find_element(By.CSS_SELECTOR, selector).is_displayed() else False)


def shot(name):
    os.makedirs(CONFIG["screenshots"], exist_ok=True)
    driver.save_screenshot(os.path.join(CONFIG["screenshots"], name + ".png"))


def settled(read):
    """`read()` of elements a page may draw again under it: tried again while they go stale."""
    for _ in range(50):
        try:
            return read()
        except StaleElementReferenceException:
            time.sleep(0.1)
    return read()


def text_of(selector):
    return driver.find_element(By.CSS_SELECTOR, selector).text


def fill(selector, value):
    field = driver.find_element(By.CSS_SELECTOR, selector)
    field.clear()
    field.send_keys(value)


def go(page):
    driver.find_element(By.CSS_SELECTOR, f'#nav a[href="#{page}"]').click()
    visible(f"#page-{page}")


def sign_in(admin=None, app_key=None, secret=None):
    driver.get(BASE + "/")
    visible("#page-signin")
    if admin:
        driver.find_element(By.CSS_SELECTOR, "#signin-form input[value=admin]").click()
        fill("#signin-admin-secret", admin)
    else:
        fill("#signin-app-key", app_key)
        fill("#signin-master-secret", secret)
    driver.find_element(By.ID, "signin-button").click()
    wait.until(lambda d: d.find_element(By.ID, "signout").is_displayed())


try:
    # -- the page itself: served with a CSP without inline script, from nothing but itself -------
    status, headers, _ = http("GET", "/console/")
    csp = headers.get("Content-Security-Policy", "")
    expect(status == 200 and "script-src 'self'" in csp and "unsafe-inline" not in csp, f"the page's CSP: {status} {csp}")
    status, _, body = http("POST", "/console/session", b'{"admin_secret": "x"}', {"Content-Type": "text/plain"})
    expect(status == 415, f"a sign-in a cross-site form could send: {status} {body}")
    status, _, body = http("POST", "/console/session", {"admin_secret": "wrong"}, {"Content-Type": "application/json"})
    expect(status == 401 and body["error"]["code"] == 1004, f"a wrong admin secret: {status} {body}")

    # -- admin: create an app, upload its .p8 ---------------------------------------------------------
    driver.get(BASE + "/")
    visible("#page-signin")
    shot("signin")
    check_console("sign-in")
    sign_in(admin=CONFIG["admin_secret"])
    visible("#page-apps")
    step("signed in as admin")
    fill("#app-name", "Console demo")
    fill("#app-key", APP)
    driver.find_element(By.ID, "app-create").click()
    notice = visible("#app-created").text
    expect(APP in notice and "master secret" in notice, f"the new app's notice: {notice}")
    master = notice.rsplit(" ", 1)[-1]
    basic = "Basic " + base64.b64encode(f"{APP}:{master}".encode()).decode()
    wait.until(lambda d: APP in d.find_element(By.ID, "apps-table").text)
    Select(driver.find_element(By.ID, "apns-app")).select_by_value(APP)
    fill("#apns-team", CONFIG["team_id"])
    fill("#apns-key-id", CONFIG["key_id"])
    fill("#apns-bundle", CONFIG["bundle_id"])
    driver.find_element(By.ID, "apns-p8").send_keys(CONFIG["p8"])
    driver.find_element(By.ID, "apns-save").click()
    saved = visible("#apns-saved").text
    expect(APP in saved, f"the key's notice: {saved}")
    expect("PRIVATE KEY" not in driver.page_source and master not in driver.find_element(By.ID, "apns-form").text,
           "the .p8 key is shown back")
    shot("apps")
    check_console("apps")
    step(f"app {APP} created, its .p8 uploaded")
    driver.find_element(By.ID, "signout").click()
    visible("#page-signin")

    # -- devices, through the bus -------------------------------------------------------------------
    tokens = {}
    devices = {}
    for n in range(5):
        token = f"{0xC0 + n:02x}" * 32
        tags = ["vip", "a&b=c|d"] if n < 3 else ["regular"]
        reply = pushctl("device.register", {"app_key": APP, "platform": "ios", "device_id": f"console-{n}", "apns_token": token,
                                            "sdk_version": XSS if n == 4 else "1.0"})
        rid = reply["registration_id"]
        pushctl("tags.add", {"app_key": APP, "registration_id": rid, "tags": tags})
        devices[n], tokens[rid] = rid, token
    pushctl("alias.set", {"app_key": APP, "registration_id": devices[0], "alias": "alice"})
    step(f"5 devices registered, 3 tagged vip: {list(devices.values())}")

    # -- the app: compose a push to a tag ----------------------------------------------------------------
    sign_in(app_key=APP, secret=master)
    visible("#page-compose")
    driver.find_element(By.CSS_SELECTOR, "#compose-form input[name=audience][value=tags]").click()
    fill("#aud-tag", "vip")
    wait.until(lambda d: d.find_element(By.ID, "estimate").text == "3")
    fill("#aud-tag-not", "regular")
    time.sleep(0.6)
    wait.until(lambda d: d.find_element(By.ID, "estimate").text == "3")
    fill("#msg-title", "Hello")
    fill("#msg-body", "For our VIPs " + XSS)
    fill("#msg-badge", "+1")
    driver.find_element(By.ID, "preview-button").click()
    wait.until(lambda d: '"aps"' in d.find_element(By.ID, "preview").text)
    preview = json.loads(text_of("#preview"))
    expect(preview["aps"]["alert"]["title"] == "Hello", f"the APNs payload previewed: {preview}")
    shot("compose")
    driver.find_element(By.ID, "send-button").click()
    sent = visible("#sent").text
    expect(sent.startswith("Sent: msg_id "), f"the send's notice: {sent}")
    msg_id = sent.split()[-1]
    check_console("compose")
    step(f"pushed {msg_id} to tag vip; the estimate said 3")

    vip_tokens = {tokens[devices[n]] for n in range(3)}
    deadline = time.time() + 60
    while {r.get("token") for r in apns_requests()} < vip_tokens and time.time() < deadline:
        time.sleep(0.3)
    arrived = [r for r in apns_requests() if r.get("token") in vip_tokens]
    expect(len(arrived) == 3, f"the stand-in got {len(arrived)} of the 3 vip notifications")
    expect(all(r.get("token") not in {tokens[devices[3]], tokens[devices[4]]} for r in apns_requests()), "a device without the tag got it")
    step("the stand-in got the 3 notifications, nobody else")

    # -- history: its counts reach sent ---------------------------------------------------------------
    deadline = time.time() + 60
    while True:
        go("history")
        row = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'#history-table tr[data-msg-id="{msg_id}"]'))
        cells = {name: row.find_element(By.CSS_SELECTOR, "td." + name).text for name in ["state", "targets", "sent"]}
        if cells == {"state": "done", "targets": "3", "sent": "3"} or time.time() > deadline:
            break
        time.sleep(1)
    expect(cells == {"state": "done", "targets": "3", "sent": "3"}, f"the history's row: {cells}")
    expect("tag: vip" in row.text, f"the history's audience: {row.text}")
    expect(len(driver.find_elements(By.CSS_SELECTOR, "#history-chart svg rect")) == 24, "the hourly chart")
    shot("history")
    check_console("history")
    step("history: done, 3 targets, 3 sent")

    # -- devices: a lookup shows its tags and that message ---------------------------------------------
    go("devices")
    fill("#device-query", "alice")
    driver.find_element(By.CSS_SELECTOR, "#device-form input[value=alias]").click()
    driver.find_element(By.ID, "device-lookup").click()
    card = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'article.device[data-registration-id="{devices[0]}"]'))
    tags = [li.text for li in card.find_elements(By.CSS_SELECTOR, "ul.tags li")]
    expect(sorted(tags) == ["a&b=c|d", "vip"], f"the device's tags: {tags}")
    message = card.find_element(By.CSS_SELECTOR, f'table.device-messages tr[data-msg-id="{msg_id}"]')
    expect("sent" in message.text, f"the device's message: {message.text}")
    answered = message.find_elements(By.TAG_NAME, "td")[-1].text
    expect(answered.strip() != "", f"the time the message was answered is shown: {message.text}")
    expect(tokens[devices[0]] not in card.text, "the APNs token is shown whole")
    shot("devices")
    check_console("devices")
    step("device lookup by alias: tags, the message sent")

    # -- what a device wrote is text, never HTML ---------------------------------------------------------
    fill("#device-query", devices[4])
    driver.find_element(By.CSS_SELECTOR, "#device-form input[value=registration_id]").click()
    driver.find_element(By.ID, "device-lookup").click()
    card = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'article.device[data-registration-id="{devices[4]}"]'))
    expect(XSS in card.text, f"the device's own sdk_version as text: {card.text}")
    expect(not driver.find_elements(By.CSS_SELECTOR, "main img"), "an <img> element made of a device's text")
    no_alert("devices")
    go("history")
    row = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'#history-table tr[data-msg-id="{msg_id}"]'))
    expect(not driver.find_elements(By.CSS_SELECTOR, "main img"), "an <img> element made of a push's text")
    no_alert("history")
    step("a device's <img onerror> and a push's are shown as text; no script ran")

    # -- a schedule fires ---------------------------------------------------------------------------------
    go("compose")
    driver.find_element(By.CSS_SELECTOR, "#compose-form input[name=audience][value=registration_id]").click()
    fill("#aud-list", devices[3])
    wait.until(lambda d: d.find_element(By.ID, "estimate").text == "1")
    fill("#msg-title", "Later")
    fill("#msg-body", "A scheduled one")
    fill("#msg-badge", "")
    driver.find_element(By.CSS_SELECTOR, "#compose-form input[name=when][value=at]").click()
    fire_at = time.gmtime(time.time() + 8)
    driver.execute_script("document.getElementById('when-time').value = arguments[0]", time.strftime("%Y-%m-%dT%H:%M:%S", fire_at))
    fill("#when-name", "in eight seconds")
    driver.find_element(By.ID, "send-button").click()
    scheduled = visible("#sent").text
    expect(scheduled.startswith("Scheduled: "), f"the schedule's notice: {scheduled}")
    schedule_id = scheduled.split()[-1]
    deadline = time.time() + 60
    while tokens[devices[3]] not in {r.get("token") for r in apns_requests()} and time.time() < deadline:
        time.sleep(0.5)
    expect(tokens[devices[3]] in {r.get("token") for r in apns_requests()}, "the scheduled push did not reach the stand-in")
    deadline = time.time() + 30
    while True:
        go("history")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f'#schedules-table tr[data-schedule-id="{schedule_id}"]'))
        time.sleep(0.5)
        sent_count = settled(lambda: driver.find_element(By.CSS_SELECTOR, f'#schedules-table tr[data-schedule-id="{schedule_id}"] td.schedule-sent').text)
        if sent_count == "1" or time.time() > deadline:
            break
        time.sleep(1)
    expect(sent_count == "1", f"the schedule's sent count: {sent_count}")
    check_console("schedule")
    step(f"schedule {schedule_id} fired: its push reached the stand-in")

    # -- a periodical schedule: made, paused, deleted ----------------------------------------------------
    go("compose")
    driver.find_element(By.CSS_SELECTOR, "#compose-form input[name=audience][value=tags]").click()
    fill("#aud-tag", "vip")
    driver.find_element(By.CSS_SELECTOR, "#compose-form input[name=when][value=periodical]").click()
    start = time.gmtime(time.time() + 3600)
    end = time.gmtime(time.time() + 30 * 86400)
    driver.execute_script("document.getElementById('when-time').value = arguments[0]; document.getElementById('when-end').value = arguments[1]",
                          time.strftime("%Y-%m-%dT%H:%M:%S", start), time.strftime("%Y-%m-%dT%H:%M:%S", end))
    Select(driver.find_element(By.ID, "when-unit")).select_by_value("week")
    fill("#when-points", "MON, FRI")
    fill("#when-name", "twice a week")
    driver.find_element(By.ID, "send-button").click()
    periodical = visible("#sent").text
    expect(periodical.startswith("Scheduled: ") and periodical != scheduled, f"the periodical schedule's notice: {periodical}")
    periodical_id = periodical.split()[-1]
    go("history")
    selector = f'#schedules-table tr[data-schedule-id="{periodical_id}"]'
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, selector))
    time.sleep(0.5)
    row_text = settled(lambda: driver.find_element(By.CSS_SELECTOR, selector).text)
    expect("periodical" in row_text and "yes" in row_text, f"the periodical schedule's row: {row_text}")
    settled(lambda: driver.find_element(By.CSS_SELECTOR, selector).find_element(By.XPATH, ".//button[text()='Pause']").click())
    wait.until(lambda d: "Resume" in settled(lambda: d.find_element(By.CSS_SELECTOR, selector).text))
    status, _, body = http("GET", f"/v4/schedules/{periodical_id}", headers={"Authorization": basic})
    expect(status == 200 and body.get("enabled") is False, f"paused: {status} {body}")
    time.sleep(0.5)
    settled(lambda: driver.find_element(By.CSS_SELECTOR, selector).find_element(By.XPATH, ".//button[text()='Delete']").click())
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, selector))
    status, _, body = http("GET", f"/v4/schedules/{periodical_id}", headers={"Authorization": basic})
    expect(status == 404, f"deleted: {status} {body}")
    check_console("schedules")
    step("a periodical schedule made, paused and deleted from the history page")

    # -- statistics -----------------------------------------------------------------------------------------
    euid = pushctl("ma.start", {"app_key": APP, "device_id": "console-ma"})["euid"]
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    pushctl("ma.events", {"app_key": APP, "euid": euid, "events": [{"name": "purchase", "time": now}] * 4})
    go("stats")
    fill("#stats-name", "purchase")
    driver.find_element(By.ID, "stats-show").click()
    total = wait.until(lambda d: d.find_element(By.ID, "stats-total")).text
    expect(total == "4 in all", f"the statistics: {total}")
    expect(len(driver.find_elements(By.CSS_SELECTOR, "#stats-chart svg rect")) >= 24, "the statistics chart")
    shot("stats")
    check_console("stats")
    step("statistics: 4 purchases charted")

    # -- CSRF: a change without the session's token changes nothing ----------------------------------------
    cookie = driver.get_cookie("pushbus_console")
    expect(cookie and cookie.get("httpOnly") and cookie.get("sameSite") == "Strict", f"the session cookie: {cookie}")
    jar = {"Cookie": f"pushbus_console={cookie['value']}", "Content-Type": "application/json"}
    status, _, before = http("GET", "/console/api/v4/messages?limit=100", headers=jar)
    expect(status == 200, f"a read with the cookie: {status} {before}")
    push = {"to": "all", "body": {"platform": "ios", "notification": {"alert": "forged"}}}
    for headers in [jar, dict(jar, **{"X-CSRF-Token": "0" * 64})]:
        status, _, body = http("POST", "/console/api/v4/push", push, headers)
        expect(status == 403, f"a push without the CSRF token: {status} {body}")
    status, _, body = http("POST", "/console/api/v4/schedules", {"name": "x"}, jar)
    expect(status == 403, f"a schedule without the CSRF token: {status} {body}")
    status, _, body = http("DELETE", f"/console/api/v4/push/withdraw/{msg_id}", None, jar)
    expect(status == 403, f"a withdraw without the CSRF token: {status} {body}")
    status, _, body = http("DELETE", "/console/session", None, jar)
    expect(status == 403, f"a sign-out without the CSRF token: {status} {body}")
    status, _, after = http("GET", "/console/api/v4/messages?limit=100", headers=jar)
    expect(len(after["messages"]) == len(before["messages"]), f"a forged request made a message: {len(before['messages'])} → {len(after['messages'])}")
    step("no change without the CSRF token")

    # -- a second cookie of the name (planted by another origin of the host) makes no session ----------
    status, _, created = http("POST", "/v1/apps", {"name": "other", "app_key": "otherapp"},
                              {"Authorization": "Bearer " + CONFIG["admin_secret"], "Content-Type": "application/json"})
    expect(status == 200, f"a second app: {status} {created}")
    request = urllib.request.Request(ROOT + "/console/session", method="POST", headers={"Content-Type": "application/json"},
                                     data=json.dumps({"app_key": "otherapp", "master_secret": created["master_secret"]}).encode())
    with urllib.request.urlopen(request, timeout=20) as response:
        planted = response.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    both = {"Cookie": f"pushbus_console={planted}; pushbus_console={cookie['value']}"}
    status, _, body = http("GET", "/console/api/v4/messages", headers=both)
    expect(status == 401, f"two session cookies, one planted: {status} {body}")
    step("two session cookies make no session")

    # -- sign-out ends the session ---------------------------------------------------------------------------
    go("compose")
    driver.find_element(By.ID, "signout").click()
    visible("#page-signin")
    status, _, body = http("GET", "/console/api/v4/messages", headers=jar)
    expect(status == 401, f"the signed-out cookie still reads: {status} {body}")
    check_console("sign-out")
    step("signed out: the old cookie reads nothing")
    # -- sign-in attempts are limited per address -------------------------------------------------------------
    answers = [http("POST", "/console/session", {"admin_secret": "guess"}, {"Content-Type": "application/json"})[0] for _ in range(15)]
    expect(429 in answers and set(answers) <= {401, 429}, f"15 wrong sign-ins at once: {answers}")
    step(f"sign-in guesses limited: {answers.count(429)} of 15 refused 429")
    print("OK", flush=True)
except Exception as error:  # a wait that timed out: say what the page showed
    shown = driver.find_element(By.ID, "error").text if driver.find_elements(By.ID, "error") else ""
    fail(f"{type(error).__name__} {error} (the page's error line: {shown!r}; log: {driver.get_log('browser')})")
finally:
    driver.quit()
