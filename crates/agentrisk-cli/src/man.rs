//! `agentrisk man`: one manual page for the whole command, rendered from
//! the same clap definitions as `--help`, so the two cannot drift apart.
//!
//! clap_mangen renders a page per command; here the top command's page gets
//! a section per subcommand (its synopsis, description, options and
//! examples as subsections), which `man -l` shows as one document.

use clap_mangen::roff::{bold, roman, Roff};
use clap_mangen::Man;

/// The page as roff source.
pub fn man_page(cmd: clap::Command, exit_status: &str) -> std::io::Result<Vec<u8>> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let top = Man::new(cmd.clone());
    let mut page = Vec::new();
    top.render_title(&mut page)?;
    top.render_name_section(&mut page)?;
    top.render_synopsis_section(&mut page)?;
    top.render_description_section(&mut page)?;
    top.render_options_section(&mut page)?;

    // clap_mangen's own list points at a page per subcommand (agentrisk-run(1)),
    // which is not installed: this one points at the sections below.
    let mut roff = Roff::new();
    roff.control("SH", ["COMMANDS"]);
    for sub in cmd.get_subcommands() {
        roff.control("TP", []);
        roff.text([bold(format!("{} {}", cmd.get_name(), sub.get_name()))]);
        let about = sub.get_about().map(|about| about.to_string()).unwrap_or_default();
        roff.text([roman(format!("{about} (section {} below)", section_title(&cmd, sub)))]);
    }
    roff.control("SH", ["EXIT STATUS"]);
    roff.text([roman(exit_status.strip_prefix("Exit status: ").unwrap_or(exit_status))]);
    roff.to_writer(&mut page)?;

    for sub in cmd.get_subcommands() {
        let mut roff = Roff::new();
        roff.control("SH", [section_title(&cmd, sub).as_str()]);
        roff.to_writer(&mut page)?;

        let man = Man::new(sub.clone());
        let mut sections = Vec::new();
        man.render_synopsis_section(&mut sections)?;
        man.render_description_section(&mut sections)?;
        man.render_options_section(&mut sections)?;
        page.extend(as_subsections(&String::from_utf8_lossy(&sections)).into_bytes());

        if let Some(examples) = sub.get_after_help() {
            examples_subsection(&examples.to_string()).to_writer(&mut page)?;
        }
    }
    top.render_version_section(&mut page)?;
    Ok(without_repeated_preamble(&String::from_utf8_lossy(&page)).into_bytes())
}

fn section_title(cmd: &clap::Command, sub: &clap::Command) -> String {
    format!("{} {}", cmd.get_name(), sub.get_name()).to_uppercase()
}

/// Every rendered piece starts with the same two lines defining the
/// apostrophe string; one copy is enough, right after the `.TH` line (which
/// `man` and `file` look for first).
fn without_repeated_preamble(roff: &str) -> String {
    let preamble = Roff::new().render();
    let body = roff.replace(&preamble, "");
    match body.split_once('\n') {
        Some((title, rest)) => format!("{title}\n{preamble}{rest}"),
        None => format!("{preamble}{body}"),
    }
}

/// A subcommand's sections, demoted to subsections of its own section.
fn as_subsections(roff: &str) -> String {
    roff.lines()
        .map(|line| match line.strip_prefix(".SH ") {
            Some(heading) => format!(".SS {heading}\n"),
            None => format!("{line}\n"),
        })
        .collect()
}

/// The `Examples:` block of a `--help`, one command a line (unfilled).
fn examples_subsection(after_help: &str) -> Roff {
    let mut roff = Roff::new();
    roff.control("SS", ["EXAMPLES"]);
    roff.control("nf", []);
    for line in after_help.lines().skip_while(|line| line.trim_end().ends_with(':')) {
        roff.text([roman(line.trim_start())]);
    }
    roff.control("fi", []);
    roff
}
