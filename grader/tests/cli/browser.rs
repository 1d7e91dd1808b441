//! Headless Chromium, driven through ChromeDriver's WebDriver API on 127.0.0.1, to look at
//! a page the way a person's browser shows it.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// The flags that let Chromium run headless on a closed network, as root, without touching
/// anything outside 127.0.0.1.
const FLAGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

/// A running ChromeDriver with one Chromium session; both end when it is dropped.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
    _profile: tempfile::TempDir,
}

/// Where a chart was drawn on the page, and how much is in it.
#[derive(Debug, serde::Deserialize)]
pub struct ChartBox {
    /// The figure's id.
    pub id: String,
    /// Its SVG's width on the page, in CSS pixels.
    pub width: f64,
    /// Its height.
    pub height: f64,
    /// Lines, areas and shapes drawn.
    pub marks: u64,
    /// Texts drawn (titles, ticks, legends).
    pub texts: u64,
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Browser {
    /// Starts ChromeDriver and a headless Chromium; `None` when either is not installed.
    pub fn start() -> Option<Browser> {
        let chromium = on_path("chromium")?;
        let driver_bin = on_path("chromedriver")?;
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new(driver_bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .proxy(None)
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let profile = tempfile::tempdir().expect("a profile folder");
        let mut browser = Browser {
            driver,
            base: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            agent,
            _profile: profile,
        };
        browser.wait_ready();
        let mut args: Vec<String> = FLAGS.iter().map(|s| (*s).to_owned()).collect();
        args.push(format!(
            "--user-data-dir={}",
            browser._profile.path().display()
        ));
        let created = browser
            .call(
                "POST",
                "/session",
                json!({"capabilities": {"alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {"binary": chromium, "args": args},
                    "goog:loggingPrefs": {"browser": "ALL"},
                }}}),
            )
            .expect("start a Chromium session");
        browser.session = created["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {created}"))
            .to_owned();
        Some(browser)
    }

    // Polling a process that starts in the background is waiting on real time.
    #[allow(clippy::disallowed_methods)]
    fn wait_ready(&self) {
        for _ in 0..200 {
            if let Ok(mut r) = self.agent.get(format!("{}/status", self.base)).call() {
                let body = r.body_mut().read_to_string().unwrap_or_default();
                if body.contains("\"ready\":true") {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("chromedriver did not get ready");
    }

    /// One WebDriver command; its `value`, or the driver's error.
    fn call(&self, method: &str, path: &str, body: Value) -> Result<Value, String> {
        let url = format!("{}{path}", self.base);
        let result = match method {
            "POST" => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(body.to_string()),
            "GET" => self.agent.get(&url).call(),
            _ => self.agent.delete(&url).call(),
        };
        let mut response = result.map_err(|e| format!("{method} {path}: {e}"))?;
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| e.to_string())?;
        let value: Value = serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
        if response.status().as_u16() != 200 {
            return Err(format!("{method} {path}: {text}"));
        }
        Ok(value["value"].clone())
    }

    /// Opens `page` and returns the script errors logged since the last call.
    pub fn open(&self, page: &Path) -> Result<Vec<String>, String> {
        let url = format!(
            "file://{}",
            page.canonicalize().map_err(|e| e.to_string())?.display()
        );
        self.call(
            "POST",
            &format!("/session/{}/url", self.session),
            json!({"url": url}),
        )?;
        let log = self.call(
            "POST",
            &format!("/session/{}/se/log", self.session),
            json!({"type": "browser"}),
        )?;
        Ok(log
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or_default().to_owned())
            .collect())
    }

    /// Runs `script` (a function body) in the open page with `args`; what it returns.
    pub fn run(&self, script: &str, args: Value) -> Result<Value, String> {
        self.call(
            "POST",
            &format!("/session/{}/execute/sync", self.session),
            json!({"script": script, "args": args}),
        )
    }

    /// Runs `script` in the open page with `args` and waits for it to call its last
    /// argument (the WebDriver callback) with its result.
    pub fn run_async(&self, script: &str, args: Value) -> Result<Value, String> {
        self.call(
            "POST",
            &format!("/session/{}/execute/async", self.session),
            json!({"script": script, "args": args}),
        )
    }

    /// The window as it shows now, as base64 PNG.
    pub fn screenshot(&self) -> Result<String, String> {
        let value = self.call(
            "GET",
            &format!("/session/{}/screenshot", self.session),
            Value::Null,
        )?;
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("no screenshot: {value}"))
    }

    /// Every `<figure>` of the open page, measured as laid out.
    pub fn charts(&self) -> Result<Vec<ChartBox>, String> {
        let script = "return Array.from(document.querySelectorAll('figure')).map(f => {
            const s = f.querySelector('svg');
            const r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
            return {id: f.id, width: r.width, height: r.height,
                marks: s ? s.querySelectorAll('polyline, path, rect, polygon, circle, line').length : 0,
                texts: s ? s.querySelectorAll('text').length : 0};
        });";
        let value = self.call(
            "POST",
            &format!("/session/{}/execute/sync", self.session),
            json!({"script": script, "args": []}),
        )?;
        serde_json::from_value(value).map_err(|e| e.to_string())
    }
}

impl Browser {
    /// How many elements of the open page match the CSS `selector`.
    pub fn count(&self, selector: &str) -> Result<u64, String> {
        let value = self.call(
            "POST",
            &format!("/session/{}/execute/sync", self.session),
            json!({"script": "return document.querySelectorAll(arguments[0]).length;", "args": [selector]}),
        )?;
        value
            .as_u64()
            .ok_or_else(|| format!("not a count: {value}"))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.call("DELETE", &format!("/session/{}", self.session), Value::Null);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
