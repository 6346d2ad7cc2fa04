"""The built site in a real browser: headless Chromium driven by Selenium, pages opened from disk."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from .conftest import REPO
from .htmlscan import scan_page, search_index

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
DESKTOP = (1280, 900)
PHONE = (390, 844)


def _unavailable(why: str):
    """Missing browser tooling fails under CI (where .ci/run installs it) and skips elsewhere."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why}; CI=true, so the browser tests must run (.ci/run installs chromium and chromium-driver)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def webdriver_module():
    try:
        from selenium import webdriver
    except ImportError:
        _unavailable("selenium is not installed")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            _unavailable(f"{path} is missing (Debian packages chromium and chromium-driver)")
    return webdriver


@pytest.fixture(scope="module")
def screenshots() -> Path:
    folder = Path(os.environ.get("CONSOLIDATE_SCREENSHOTS") or REPO / "test-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def driver(webdriver_module, tmp_path_factory):
    """One headless Chromium for the module, with its own profile and the browser console recorded."""
    from selenium.webdriver.chrome.service import Service

    options = webdriver_module.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
                     f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path: Selenium Manager never runs, so nothing is downloaded.
    browser = webdriver_module.Chrome(service=Service(CHROMEDRIVER), options=options)
    browser.set_page_load_timeout(60)
    try:
        yield browser
    finally:
        browser.quit()


def open_page(driver, site: Path, relative: str) -> None:
    driver.get((site / relative).resolve().as_uri())
    wait(driver, lambda d: d.execute_script("return document.readyState") == "complete")


def wait(driver, condition, timeout: float = 10):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def console_errors(driver) -> list[str]:
    """SEVERE entries of the browser console since the last call (reading the log empties it)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def current_file(driver) -> tuple[Path, str]:
    parts = urlsplit(driver.current_url)
    assert parts.scheme == "file", driver.current_url
    return Path(unquote(parts.path)), unquote(parts.fragment)


def save(driver, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    assert driver.save_screenshot(str(path)), f"no screenshot for {name}"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
    return path


def phone(driver, on: bool) -> None:
    """Emulate a phone's screen (390×844 CSS pixels, touch, mobile viewport) or go back to the desktop."""
    if on:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 2, "mobile": True})
    else:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def boxes(driver):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, ".mli-box")


def assert_visible_boxes(driver, count: int) -> None:
    found = boxes(driver)
    assert len(found) == count
    for box in found:
        rect = box.rect
        assert box.is_displayed() and rect["width"] > 0 and rect["height"] > 0, box.get_attribute("id")


def horizontal_overflow(driver) -> int:
    """How many CSS pixels the page is wider than the screen (a phone user would scroll sideways)."""
    # Not window.innerWidth: on a mobile viewport the layout viewport grows to fit wide content.
    return driver.execute_script("var root = document.documentElement; return root.scrollWidth - root.clientWidth")


def test_in_pt_shows_its_six_mli_boxes(driver, built_site, screenshots):
    """in-pt opens from disk without console errors and its six MLI boxes are displayed, on desktop and phone."""
    open_page(driver, built_site, "treaties/in-pt/hi/index.html")
    assert console_errors(driver) == []
    assert driver.execute_script("return document.documentElement.lang") == "hi"
    assert_visible_boxes(driver, 6)
    save(driver, screenshots, "in-pt-desktop")
    driver.execute_script("document.getElementById('art_13__para_4').scrollIntoView()")
    save(driver, screenshots, "in-pt-art_13-desktop")
    phone(driver, True)
    try:
        open_page(driver, built_site, "treaties/in-pt/hi/index.html")
        assert console_errors(driver) == []
        assert_visible_boxes(driver, 6)
        assert horizontal_overflow(driver) <= 0
        save(driver, screenshots, "in-pt-phone")
        driver.execute_script("document.getElementById('mli-art_5-15-1').scrollIntoView()")
        save(driver, screenshots, "in-pt-art_5-box-phone")
    finally:
        phone(driver, False)


def test_language_switch_goes_from_english_to_hindi(driver, built_site, screenshots):
    """On in-cl, the language switch leads from the English page to the Hindi one (<html lang="hi">)."""
    from selenium.webdriver.common.by import By

    open_page(driver, built_site, "treaties/in-cl/en/index.html")
    assert driver.execute_script("return document.documentElement.lang") == "en"
    save(driver, screenshots, "in-cl-en-desktop")
    switch = driver.find_element(By.CSS_SELECTOR, "nav.language-switch a[hreflang='hi']")
    assert switch.is_displayed()
    switch.click()
    wait(driver, lambda d: "/in-cl/hi/" in d.current_url
         and d.execute_script("return document.readyState") == "complete")
    path, _ = current_file(driver)
    assert path.is_file() and path.parent.name == "hi"
    assert driver.execute_script("return document.documentElement.lang") == "hi"
    assert console_errors(driver) == []
    save(driver, screenshots, "in-cl-hi-desktop")


def _expected_hits(site: Path, word: str) -> int:
    """How many provisions the shipped index lists for a one-word query (indexed words it begins)."""
    word = unicodedata.normalize("NFC", word).lower()
    _, docs, _ = search_index(site)
    return len({(treaty, i) for treaty, index in docs.items() for term, positions in index["words"].items()
                if term.startswith(word) for i in positions})


@pytest.mark.parametrize("word, lang", [("लाभांश", "hi"), ("dividends", "en")], ids=["hindi", "english"])
def test_search_finds_words_and_links_to_existing_pages(driver, built_site, screenshots, word, lang):
    """Typing a word into search.html lists every entry holding it, each linking to an existing provision."""
    from selenium.webdriver.common.by import By

    expected = _expected_hits(built_site, word)
    assert expected > 0
    open_page(driver, built_site, "search.html")
    field = driver.find_element(By.ID, "q")
    field.send_keys(word)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".search-results li"))
    assert field.get_attribute("value") == word
    wait(driver, lambda d: "result" in d.find_element(By.CSS_SELECTOR, ".search-count").text)
    count = driver.find_element(By.CSS_SELECTOR, ".search-count").text
    assert count == f"{expected} results" + (" (first 200 shown)" if expected > 200 else "")
    links = driver.find_elements(By.CSS_SELECTOR, ".search-results li a")
    snippets = driver.find_elements(By.CSS_SELECTOR, ".search-results li p")
    assert len(links) == min(expected, 200)
    assert all(s.get_attribute("lang") == lang for s in snippets)
    for link in links:
        target = urlsplit(link.get_attribute("href"))
        path = Path(unquote(target.path))
        assert path.is_file(), link.get_attribute("href")
        assert unquote(target.fragment) in scan_page(built_site, path).ids
    save(driver, screenshots, f"search-{lang}-desktop")
    first = links[0].get_attribute("href")
    links[0].click()
    wait(driver, lambda d: d.current_url == first)
    path, fragment = current_file(driver)
    assert driver.execute_script("return document.getElementById(arguments[0]) !== null", fragment)
    assert driver.execute_script("return document.documentElement.lang") == lang
    assert console_errors(driver) == []


@pytest.mark.parametrize("day, count", [("2021-01-01", 6), ("2020-12-31", 0)])
def test_point_in_time_form_opens_the_text_in_effect(driver, built_site, screenshots, day, count):
    """in-pt, Portugal, taxes withheld at source: the MLI's six boxes apply from 1 January 2021, not before."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_page(driver, built_site, "treaties/in-pt/hi/point-in-time.html")
    form = driver.find_element(By.CSS_SELECTOR, "form[data-pit]")
    Select(form.find_element(By.NAME, "state")).select_by_value("PT")
    Select(form.find_element(By.NAME, "tax")).select_by_value("withholding")
    # A date field's typed format follows the browser's locale; its value is always ISO.
    date_field = form.find_element(By.NAME, "date")
    driver.execute_script("arguments[0].value = arguments[1];"
                          "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
                          "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));", date_field, day)
    assert date_field.get_attribute("value") == day
    start = driver.current_url
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(driver, lambda d: d.current_url != start and d.execute_script("return document.readyState") == "complete")
    path, _ = current_file(driver)
    assert path.is_file()
    assert path.resolve().is_relative_to((built_site / "treaties" / "in-pt" / "hi").resolve())
    assert driver.execute_script("return document.documentElement.lang") == "hi"
    assert_visible_boxes(driver, count)
    assert console_errors(driver) == []
    save(driver, screenshots, f"point-in-time-{day}-desktop")


def test_pages_fit_a_phone_screen(driver, built_site, screenshots):
    """On a 390-pixel-wide phone no page needs sideways scrolling: index, search, timeline, parallel, diff."""
    pages = ["index.html", "search.html?q=dividends", "treaties/in-cl/timeline.html", "treaties/in-cl/parallel.html",
             "treaties/in-cl/en/diff/base--protocol.html", "treaties/in-pt/hi/point-in-time.html"]
    phone(driver, True)
    try:
        wide = {}
        for page in pages:
            name, _, query = page.partition("?")
            driver.get((built_site / name).resolve().as_uri() + (f"?{query}" if query else ""))
            wait(driver, lambda d: d.execute_script("return document.readyState") == "complete")
            assert console_errors(driver) == []
            if (overflow := horizontal_overflow(driver)) > 0:
                wide[page] = overflow
            save(driver, screenshots, re.sub(r"[^a-z0-9]+", "-", page.lower()).strip("-") + "-phone")
        assert not wide, f"pages wider than a phone (CSS pixels too wide): {wide}"
    finally:
        phone(driver, False)
