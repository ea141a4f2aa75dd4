//! V3: a deprecated tool (or alias) names a replacement that exists, and its window is watched:
//! a warning from 30 days before its last day, and once it passed (the server no longer serves
//! the tool; the overlay entry can go). The only rule that reads the clock: the catalog is the
//! same whatever day it is compiled, only this advice changes.

use super::{Context, Rule};
use crate::diag::Diagnostic;

pub struct DeprecationRule;

pub const CODE: &str = "V3-deprecation";

/// How long before its last day a deprecated tool is announced.
const AHEAD_DAYS: u64 = 30;
const DAY_MS: u64 = 86_400_000;

impl Rule for DeprecationRule {
    fn code(&self) -> &'static str {
        CODE
    }

    fn check(&self, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        for tool in &ctx.catalog.tools {
            let Some(sunset) = &tool.sunset else { continue };
            if let Some(other) = &sunset.use_instead
                && !ctx.catalog.tools.iter().any(|t| &t.name == other && t.sunset.is_none())
            {
                out.push(
                    ctx.at_tool(
                        Diagnostic::error(
                            CODE,
                            format!("`{}` is deprecated for `{other}`, which is not a current tool", tool.name),
                        )
                        .with_help(
                            "name the tool that replaces it in `deprecated.use` (`mcp-gen plan` lists the tools)",
                        ),
                        tool,
                    ),
                );
            }
            let message = if now > sunset.until_ms {
                format!("`{}` was served until {}: the server no longer lists or runs it", tool.name, sunset.until)
            } else if sunset.until_ms - now <= AHEAD_DAYS * DAY_MS {
                let days = (sunset.until_ms - now).div_ceil(DAY_MS);
                format!("`{}` is served {days} more day(s), until {}", tool.name, sunset.until)
            } else {
                continue;
            };
            out.push(ctx.at_tool(
                Diagnostic::warning(CODE, message).with_help(
                    "tell the clients that still call it; once the day passed, remove the tool (or alias) from the overlay",
                ),
                tool,
            ));
        }
    }
}
