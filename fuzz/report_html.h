// report.html: the campaign report for people, rendered from report.json's data alone. One
// self-contained file (inline CSS and SVG, no script, no network): totals, programs/s and verdicts
// over time, buckets, findings with links to their reproducers, the generator's op and feature
// histograms.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace sf::fuzz {

// Every tag is closed and every attribute quoted (XHTML-style), so a plain XML check can verify it.
std::string report_html(const nlohmann::ordered_json& report);

}  // namespace sf::fuzz
