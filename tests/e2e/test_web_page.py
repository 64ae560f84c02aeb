"""The built-in web chat page (issue 28, part 2) in a real headless Chromium (Debian's chromium and
chromium-driver, installed by scripts/setup.sh) driven by selenium: the page comes from the
binary itself (no network), a conversation streams, the reasoning is shown collapsed apart from
the answer, tool calls are shown, and a server error (a missing API key) reaches the user. The
server is the test binary with the scripted-output seam, so the answers are known in advance."""
import json

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import gemmad_e2e as e2e

MODEL = e2e.DEFAULT_REPO
KEY = "web-secret"
Q = '<|"|>'
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
    "city": {"type": "string"}}, "required": ["city"]}}}]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("script") / "script.jsonl")
    open(path, "w").close()
    s = e2e.Server([MODEL, "--api-key", KEY] + e2e.TOOL_FLAGS, env={"GEMMAD_TEST_SCRIPTED_OUTPUT": path},
                   name="web", bin=e2e.TESTING_BIN)
    s.start()
    s.script_path = path
    yield s
    assert s.stop() == 0, s.log()


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def script(server, messages, text, thinking=False, tools=None):
    """The chat request the page sends for `messages` generates `text` (/tokenize needs no key)."""
    e2e.script_output(server, e2e.chat_body(MODEL, messages, tools, thinking), text)


def wait(browser, condition, timeout=30):
    return WebDriverWait(browser, timeout).until(lambda d: condition(d))


def send(browser, text):
    box = browser.find_element(By.ID, "message")
    box.clear()
    box.send_keys(text)
    browser.find_element(By.ID, "send").click()


def test_page_is_built_in_and_needs_no_key(server):
    status, headers, data = e2e.http("GET", server.base_url + "/")
    assert status == 200
    page = data.decode() if isinstance(data, bytes) else data
    assert "<title>gemmad chat</title>" in page
    assert "http://" not in page and "https://" not in page, "no CDN: the page works offline"


def test_a_missing_key_is_shown_then_a_conversation_streams(server, browser):
    browser.get(server.base_url + "/")
    browser.execute_script("localStorage.clear()")
    browser.get(server.base_url + "/")
    # Without the key the model list fails: the server's 401 is shown to the user.
    err = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".msg.error"))
    assert "HTTP 401" in err[0].text, err[0].text
    key = browser.find_element(By.ID, "api-key")
    key.send_keys(KEY)
    browser.execute_script("document.getElementById('api-key').dispatchEvent(new Event('change'))")
    wait(browser, lambda d: d.find_element(By.ID, "model").get_attribute("value") == MODEL)

    # Thinking on: the reasoning streams into a block that is collapsed once the answer comes.
    script(server, [{"role": "user", "content": "web hello"}],
           "<|channel>thought\nThe user says hello.<channel|>Hello from the page!<turn|>", thinking=True)
    browser.find_element(By.ID, "thinking").click()
    send(browser, "web hello")
    answer = wait(browser, lambda d: [a for a in d.find_elements(By.CSS_SELECTOR, ".msg.assistant .answer")
                                      if a.text == "Hello from the page!"])
    assert answer
    details = browser.find_element(By.CSS_SELECTOR, ".msg.assistant details.thinking")
    assert details.get_attribute("open") is None, "the reasoning is collapsed"
    reasoning = browser.execute_script("return document.querySelector('details.thinking .reasoning').textContent")
    assert reasoning == "The user says hello."
    assert "<|channel>" not in browser.find_element(By.ID, "messages").text

    # The second turn carries the history (its prompt is only scripted with it).
    script(server, [{"role": "user", "content": "web hello"}, {"role": "assistant", "content": "Hello from the page!"},
                    {"role": "user", "content": "and again"}], "Again, with history.<turn|>", thinking=True)
    send(browser, "and again")
    wait(browser, lambda d: [a for a in d.find_elements(By.CSS_SELECTOR, ".answer") if a.text == "Again, with history."])
    assert browser.find_element(By.ID, "send").is_enabled()


def test_tool_calls_are_shown(server, browser):
    browser.get(server.base_url + "/")
    browser.find_element(By.ID, "clear").click()
    wait(browser, lambda d: d.find_element(By.ID, "model").get_attribute("value") == MODEL)
    if browser.find_element(By.ID, "thinking").is_selected():
        browser.find_element(By.ID, "thinking").click()
    tools = browser.find_element(By.ID, "tools")
    tools.send_keys("[not json")
    send(browser, "bad tools")
    err = wait(browser, lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, ".msg.error") if "Tools:" in e.text])
    assert err
    tools.clear()
    tools.send_keys(json.dumps(TOOLS))
    script(server, [{"role": "user", "content": "web weather"}],
           f"<|tool_call>call:get_weather{{city:{Q}Oslo{Q}}}<tool_call|><|tool_response>", tools=TOOLS)
    send(browser, "web weather")
    call = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".tool-call"))
    assert call[0].text.startswith("Tool call: get_weather "), call[0].text
    assert json.loads(call[0].text.split("get_weather ", 1)[1]) == {"city": "Oslo"}


def test_images_are_sent_with_a_message(server, browser, tmp_path):
    import media_util as mu
    png = mu.encode(mu.picture(64, 48, seed=21), "PNG")
    path = tmp_path / "web.png"
    path.write_bytes(png)
    browser.get(server.base_url + "/")
    browser.find_element(By.ID, "clear").click()
    wait(browser, lambda d: d.find_element(By.ID, "model").get_attribute("value") == MODEL)
    if browser.find_element(By.ID, "thinking").is_selected():
        browser.find_element(By.ID, "thinking").click()
    browser.find_element(By.ID, "tools").clear()
    first = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": mu.data_url(png, "image/png")}},
                                          {"type": "text", "text": "web picture"}]}]
    script(server, first, "A small gradient.<turn|>")
    browser.find_element(By.ID, "images").send_keys(str(path))
    send(browser, "web picture")
    wait(browser, lambda d: [a for a in d.find_elements(By.CSS_SELECTOR, ".answer") if a.text == "A small gradient."])
    thumbs = browser.find_elements(By.CSS_SELECTOR, ".msg.user img.thumb")
    assert len(thumbs) == 1 and thumbs[0].get_attribute("src").startswith("data:image/png;base64,")
    assert browser.find_element(By.ID, "images").get_attribute("value") == "", "the picture goes with one message"
    # The next turn keeps the picture in the history and adds none.
    script(server, first + [{"role": "assistant", "content": "A small gradient."}, {"role": "user", "content": "more"}],
           "Still small.<turn|>")
    send(browser, "more")
    wait(browser, lambda d: [a for a in d.find_elements(By.CSS_SELECTOR, ".answer") if a.text == "Still small."])


def test_audio_is_sent_with_a_message(server, browser, tmp_path):
    import base64

    import media_util as mu
    wav = mu.wav(mu.tone(0.5, seed=22))
    path = tmp_path / "web.wav"
    path.write_bytes(wav)
    browser.get(server.base_url + "/")
    browser.find_element(By.ID, "clear").click()
    wait(browser, lambda d: d.find_element(By.ID, "model").get_attribute("value") == MODEL)
    if browser.find_element(By.ID, "thinking").is_selected():
        browser.find_element(By.ID, "thinking").click()
    browser.find_element(By.ID, "tools").clear()
    first = [{"role": "user", "content": [
        {"type": "input_audio", "input_audio": {"data": base64.b64encode(wav).decode(), "format": "wav"}},
        {"type": "text", "text": "web clip"}]}]
    script(server, first, "A short tone.<turn|>")
    browser.find_element(By.ID, "audios").send_keys(str(path))
    send(browser, "web clip")
    wait(browser, lambda d: [a for a in d.find_elements(By.CSS_SELECTOR, ".answer") if a.text == "A short tone."])
    clips = browser.find_elements(By.CSS_SELECTOR, ".msg.user audio.clip")
    assert len(clips) == 1 and clips[0].get_attribute("src").startswith("data:audio/")
    assert browser.find_element(By.ID, "audios").get_attribute("value") == "", "the clip goes with one message"
