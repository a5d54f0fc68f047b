//! kwire under pressure: a reader that goes away, and JSON with a key given twice.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn kwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .output()
        .expect("run kwire")
}

/// Runs kwire with its stdout a pipe whose reader has already exited, as in `kwire apis |
/// head -0`: every write fails with EPIPE.
fn with_closed_stdout(args: &[&str], stdin: &str) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kwire");
    {
        let mut input = child.stdin.take().expect("stdin");
        // kwire may exit before reading all of it.
        let _ = input.write_all(stdin.as_bytes());
    }
    child.wait_with_output().expect("kwire output")
}

#[test]
fn a_closed_stdout_ends_quietly_with_the_sigpipe_status() {
    let frame = String::from_utf8(kwire(&["example", "24", "5", "request"]).stdout).unwrap();
    let frame = frame.trim();
    let json = String::from_utf8(kwire(&["decode", frame]).stdout).unwrap();
    let json = json.trim();
    let lines = format!("{frame}\n").repeat(2000);
    let cases: [(&[&str], &str); 7] = [
        (&["apis"], ""),
        (&["example", "24", "5", "request"], ""),
        (&["decode", frame], ""),
        (&["encode", json], ""),
        (&["dump", frame], ""),
        (&["decode", "-"], &lines),
        (&["dump", "-"], frame),
    ];
    for (args, stdin) in cases {
        let o = with_closed_stdout(args, stdin);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(141), "kwire {args:?}: {err}");
        assert!(!err.contains("panicked"), "kwire {args:?}: {err}");
        assert!(err.is_empty(), "kwire {args:?} said: {err}");
    }
}

#[test]
fn a_key_given_twice_is_an_error_with_its_path() {
    let frame = String::from_utf8(kwire(&["example", "24", "5", "request"]).stdout).unwrap();
    let json = String::from_utf8(kwire(&["decode", frame.trim()]).stdout).unwrap();
    let json = json.trim();
    assert!(kwire(&["encode", json]).status.success());
    // At the top level, and inside the header.
    let top = json.replacen('{', r#"{"apiVersion":4,"#, 1);
    let o = kwire(&["encode", &top]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("duplicate key `apiVersion` at $.apiVersion"),
        "{err}"
    );
    let nested = json.replacen(r#""header":{"#, r#""header":{"correlationId":1,"#, 1);
    assert_ne!(nested, json);
    let o = kwire(&["encode", &nested]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("duplicate key `correlationId` at $.header.correlationId"),
        "{err}"
    );
    // In batch mode the error is that line's output, and the other lines still encode.
    let o = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(["encode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin
                .take()
                .unwrap()
                .write_all(format!("{nested}\n{json}\n").as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains("duplicate key"), "{}", lines[0]);
    assert_eq!(lines[1], frame.trim());
}
