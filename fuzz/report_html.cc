// Renders report.html from the report's JSON (see report_html.h). Charts are inline SVG polylines
// on a fixed 640x200 canvas; text is escaped wherever it comes from a program or a message.
#include "fuzz/report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fuzz/signature.h"
#include "fuzz/utf8.h"
#include "fuzz/xml_text.h"

namespace sf::fuzz {

namespace {

using Json = nlohmann::ordered_json;

std::string num(double v, int digits = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string str_of(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

double num_of(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// A seed, exact when it is an unsigned count (seeds go up to 2^64 - 1, past a double's 2^53).
std::string seed_of(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it != j.end() && it->is_number_unsigned()) return std::to_string(it->get<uint64_t>());
  return num(num_of(j, key), 0);
}

const char* kColors[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
                         "#e6ab02", "#a6761d", "#666666", "#1f78b4", "#b2df8a"};

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (seconds, value)
};

// A line chart: x is seconds, y linear from 0 (or log10(1 + y) when `log_y`).
std::string line_chart(const std::string& title, const std::string& y_label,
                       const std::vector<Series>& series, bool log_y) {
  const double W = 640, H = 200, L = 56, B = 28, T = 10, R = 10;
  double max_x = 0, max_y = 0;
  auto fy = [&](double y) { return log_y ? std::log10(1 + std::max(0.0, y)) : y; };
  for (const Series& s : series) {
    for (const auto& [x, y] : s.points) {
      max_x = std::max(max_x, x);
      max_y = std::max(max_y, fy(y));
    }
  }
  if (max_x <= 0) max_x = 1;
  if (max_y <= 0) max_y = 1;
  auto px = [&](double x) { return L + (W - L - R) * x / max_x; };
  auto py = [&](double y) { return T + (H - T - B) * (1 - fy(y) / max_y); };
  std::string out = "<figure><figcaption>" + xml_escape(title) + "</figcaption>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(W, 0) + "\" height=\"" +
         num(H, 0) + "\" role=\"img\" aria-label=\"" + xml_escape(title) + "\">\n";
  out += "<rect x=\"" + num(L, 0) + "\" y=\"" + num(T, 0) + "\" width=\"" + num(W - L - R, 0) +
         "\" height=\"" + num(H - T - B, 0) + "\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n";
  // Axis labels: 0 and the maximum on each axis.
  double top = log_y ? std::pow(10, max_y) - 1 : max_y;
  out += "<text x=\"" + num(L - 4, 0) + "\" y=\"" + num(T + 10, 0) +
         "\" text-anchor=\"end\" font-size=\"11\">" + num(top, top < 10 ? 1 : 0) + "</text>\n";
  out += "<text x=\"" + num(L - 4, 0) + "\" y=\"" + num(H - B, 0) +
         "\" text-anchor=\"end\" font-size=\"11\">0</text>\n";
  out += "<text x=\"" + num(L, 0) + "\" y=\"" + num(H - 8, 0) + "\" font-size=\"11\">0 s</text>\n";
  out += "<text x=\"" + num(W - R, 0) + "\" y=\"" + num(H - 8, 0) +
         "\" text-anchor=\"end\" font-size=\"11\">" + num(max_x, 0) + " s</text>\n";
  out += "<text x=\"12\" y=\"" + num(T + (H - T - B) / 2, 0) +
         "\" font-size=\"11\" transform=\"rotate(-90 12 " + num(T + (H - T - B) / 2, 0) +
         ")\" text-anchor=\"middle\">" + xml_escape(y_label) + (log_y ? " (log)" : "") +
         "</text>\n";
  for (size_t i = 0; i < series.size(); ++i) {
    std::string pts;
    for (const auto& [x, y] : series[i].points) pts += num(px(x), 1) + "," + num(py(y), 1) + " ";
    out += "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" + std::string(kColors[i % 10]) +
           "\" points=\"" + pts + "\"><title>" + xml_escape(series[i].name) +
           "</title></polyline>\n";
  }
  out += "</svg>\n";
  if (series.size() > 1) {
    out += "<div class=\"legend\">";
    for (size_t i = 0; i < series.size(); ++i) {
      out += "<span><span class=\"swatch\" style=\"background:" + std::string(kColors[i % 10]) +
             "\"></span>" + xml_escape(series[i].name) + "</span> ";
    }
    out += "</div>\n";
  }
  return out + "</figure>\n";
}

// A table of name, count and a bar proportional to the count.
std::string bar_table(const std::string& title, const std::string& what,
                      const std::vector<std::pair<std::string, double>>& rows, double total,
                      const std::string& note) {
  double max = 1;
  for (const auto& r : rows) max = std::max(max, r.second);
  std::string out = "<h3>" + xml_escape(title) + "</h3>\n";
  if (!note.empty()) out += "<p class=\"note\">" + xml_escape(note) + "</p>\n";
  out += "<table class=\"bars\"><thead><tr><th>" + xml_escape(what) +
         "</th><th>count</th><th>share</th><th></th></tr></thead><tbody>\n";
  for (const auto& [name, n] : rows) {
    out += "<tr><td>" + xml_escape(name) + "</td><td class=\"n\">" + num(n, 0) +
           "</td><td class=\"n\">" + (total > 0 ? num(100.0 * n / total, 1) + "%" : "") +
           "</td><td><div class=\"bar\" style=\"width:" + num(200.0 * n / max, 0) +
           "px\"></div></td></tr>\n";
  }
  return out + "</tbody></table>\n";
}

// At most n bytes of s, never cutting a UTF-8 sequence, with an ellipsis when cut.
std::string abbreviate(const std::string& s, size_t n) {
  return s.size() <= n ? xml_escape(s) : xml_escape(utf8_prefix(s, n)) + "&#8230;";
}

std::string link(const std::string& path, const std::string& label) {
  if (path.empty()) return "<span class=\"none\">none</span>";
  return "<a href=\"" + xml_escape(path) + "\">" + xml_escape(label) + "</a>";
}

// The features at 1, 10 and 60 minutes (the last sample at or before each that was reached), and
// their ratio to the first: whether the campaign keeps exploring.
std::string coverage_milestones(const Json& timeline) {
  std::string out;
  double first = 0;
  for (double minutes : {1.0, 10.0, 60.0}) {
    const Json* at = nullptr;
    for (const Json& t : timeline) {
      if (num_of(t, "seconds") <= minutes * 60) at = &t;
    }
    if (!at || num_of(timeline.back(), "seconds") < minutes * 60 - 1) break;
    double f = num_of(*at, "features");
    if (first == 0) first = f;
    out += (out.empty() ? "" : "; ") + num(minutes, 0) + " min: " + num(f, 0) +
           (first > 0 && f != first ? " (" + num(f / first, 2) + "&#215;)" : "");
  }
  return out.empty() ? "" : "<p class=\"note\">Features reached at " + out + "</p>\n";
}

// A resumed campaign's nights (report.json "nights"), oldest first.
std::string nights_table(const Json& nights) {
  std::string h =
      "<h2>Nights</h2>\n<p class=\"note\">Each run of <code>campaign --resume</code> in this "
      "directory: features count every night's, new ones are those no earlier night reached; "
      "the corpus was distilled before the night began.</p>\n<table><tr><th>night</th>"
      "<th>first seed</th><th>seconds</th><th>programs</th><th>features</th><th>new</th>"
      "<th>findings</th><th>corpus read &#8594; kept</th></tr>\n";
  for (size_t i = 0; i < nights.size(); ++i) {
    const Json& n = nights[i];
    std::string corpus = "<span class=\"none\">-</span>";
    if (n.contains("corpus") && n["corpus"].is_object()) {
      corpus =
          num(num_of(n["corpus"], "read"), 0) + " &#8594; " + num(num_of(n["corpus"], "kept"), 0);
    }
    h += "<tr><td class=\"n\">" + std::to_string(i + 1) + "</td><td class=\"n\">" +
         seed_of(n, "first_seed") + "</td><td class=\"n\">" + num(num_of(n, "seconds"), 0) +
         "</td><td class=\"n\">" + num(num_of(n, "programs"), 0) + "</td><td class=\"n\">" +
         num(num_of(n, "features"), 0) + "</td><td class=\"n\">" +
         num(num_of(n, "new_features"), 0) + "</td><td class=\"n\">" +
         num(num_of(n, "findings"), 0) + "</td><td>" + corpus + "</td></tr>\n";
  }
  return h + "</table>\n";
}

}  // namespace

std::string report_html(const Json& r) {
  const double seconds = num_of(r, "seconds");
  const double programs = num_of(r, "programs");
  const Json empty_object = Json::object();
  const Json empty_array = Json::array();
  const Json& buckets = r.contains("buckets") ? r["buckets"] : empty_object;
  const Json& findings = r.contains("findings") ? r["findings"] : empty_array;
  const Json& timeline = r.contains("timeline") ? r["timeline"] : empty_array;

  int failures = 0, crashes = 0, triage = 0;
  for (const Json& f : findings) {
    std::string c = str_of(f, "class");
    (c == "failures" ? failures : c == "crashes" ? crashes : triage)++;
  }

  std::string h =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<title>shapefuzz campaign report</title>\n<style>\n"
      "body{font-family:system-ui,sans-serif;margin:24px;max-width:1100px;color:#222}\n"
      "h1{margin-bottom:4px} .sub{color:#666;margin-top:0}\n"
      ".cards{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0}\n"
      ".card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:110px}\n"
      ".card b{display:block;font-size:22px} .card.bad b{color:#c0392b} .card.ok b{color:#1e8449}\n"
      "table{border-collapse:collapse;margin:8px 0 20px} td,th{padding:3px 10px;"
      "border-bottom:1px solid #eee;text-align:left;vertical-align:top}\n"
      "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
      ".bar{height:10px;background:#5b8def} .note{color:#666;font-size:13px}\n"
      "figure{margin:10px 0 20px} figcaption{font-weight:600;margin-bottom:4px}\n"
      ".legend{font-size:12px} .swatch{display:inline-block;width:10px;height:10px;"
      "margin:0 4px 0 10px}\n"
      "pre{white-space:pre-wrap;background:#f6f6f6;padding:6px;font-size:12px}\n"
      ".none{color:#999} .fail{color:#c0392b;font-weight:600} .triage{color:#b9770e}\n"
      "</style>\n</head>\n<body>\n";
  h += "<h1>shapefuzz campaign report</h1>\n<p class=\"sub\">" +
       xml_escape(str_of(r, "status") == "running"
                      ? "still running (this page is rewritten as the campaign goes)"
                      : str_of(r, "status")) +  // finished, or interrupted by a signal
       " &#183; report.json schema " +
       num(num_of(r, "schema_version"), 0) + "</p>\n";
  h += "<div class=\"cards\">";
  auto card = [&](const std::string& label, const std::string& value, const char* cls) {
    h += std::string("<div class=\"card ") + cls + "\"><b>" + xml_escape(value) + "</b>" +
         xml_escape(label) + "</div>";
  };
  card("programs", num(programs, 0), "");
  card("seconds", num(seconds, 1), "");
  card("programs/s", num(num_of(r, "programs_per_second"), 0), "");
  card("features reached", num(num_of(r, "features"), 0), "");
  card("failures (distinct)", std::to_string(failures), failures ? "bad" : "ok");
  card("crashes (distinct)", std::to_string(crashes), crashes ? "bad" : "ok");
  card("triage (distinct)", std::to_string(triage), "");
  card("workers lost", num(num_of(r, "workers_lost"), 0), "");
  h += "</div>\n";
  h += "<p class=\"note\">A failure is an oracle finding an engine bug; a crash is the engine "
       "aborting; triage is a program the generator made valid that the engine rejected, or an "
       "oracle that could not decide. Rejections (user errors) are verdicts, not findings. "
       "Replay any reproducer with <code>shapefuzz repro FILE</code>.</p>\n";

  // Over time: programs/s between samples, and each bucket's running count.
  if (timeline.size() >= 2) {
    Series rate{"programs/s", {}};
    // Rates over at least half a second: the final sample often comes a moment after the last
    // progress one, and a rate over that sliver would plunge to zero.
    size_t from = 0;
    for (size_t i = 1; i < timeline.size(); ++i) {
      double dt = num_of(timeline[i], "seconds") - num_of(timeline[from], "seconds");
      if (dt < 0.5) continue;
      double dp = num_of(timeline[i], "programs") - num_of(timeline[from], "programs");
      rate.points.push_back({num_of(timeline[i], "seconds"), dp / dt});
      from = i;
    }
    h += "<h2>Over time</h2>\n" + line_chart("Programs per second", "programs/s", {rate}, false);
    Series coverage{"features", {}};
    for (const Json& t : timeline) {
      coverage.points.push_back({num_of(t, "seconds"), num_of(t, "features")});
    }
    h += line_chart(
        "Coverage: distinct features reached (ops and op pairs, binding paths, replacement "
        "kinds, assert and guard shapes, verdicts; code edges in a --config=sancov build)",
        "features", {coverage}, false);
    h += coverage_milestones(timeline);
    std::vector<std::pair<std::string, double>> order;
    for (const auto& [k, v] : buckets.items()) order.push_back({k, v.get<double>()});
    std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.second > b.second; });
    if (order.size() > 10) order.resize(10);
    std::vector<Series> verdicts;
    for (const auto& [name, n] : order) {
      Series s{name, {}};
      for (const Json& t : timeline) {
        double v = 0;
        if (t.contains("buckets") && t["buckets"].contains(name))
          v = t["buckets"][name].get<double>();
        s.points.push_back({num_of(t, "seconds"), v});
      }
      verdicts.push_back(s);
    }
    h += line_chart("Verdicts so far, by bucket (the 10 largest)", "programs", verdicts, true);
  } else {
    h += "<p class=\"note\">The charts appear once the campaign has run for two seconds.</p>\n";
  }

  if (r.contains("nights") && r["nights"].is_array() && r["nights"].size() >= 2) {
    h += nights_table(r["nights"]);
  }

  std::vector<std::pair<std::string, double>> rows;
  for (const auto& [k, v] : buckets.items()) rows.push_back({k, v.get<double>()});
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second > b.second; });
  h += "<h2>Verdicts</h2>\n" + bar_table("Programs by bucket", "bucket", rows, programs, "");

  h += "<h2>Findings</h2>\n";
  if (findings.empty()) {
    h += "<p>No failure, crash or triage finding.</p>\n";
  } else {
    h += "<p class=\"note\">One row per distinct signature (bucket and normalized message), "
         "failures and crashes first. Links are relative to this page.</p>\n";
    h += "<table><thead><tr><th>bucket</th><th>count</th><th>first seed</th><th>found at</th>"
         "<th>statements</th><th>reproducer</th><th>minimized</th><th>GoogleTest</th>"
         "<th>detail</th></tr></thead><tbody>\n";
    std::vector<const Json*> sorted;
    for (const Json& f : findings) sorted.push_back(&f);
    std::stable_sort(sorted.begin(), sorted.end(), [](const Json* a, const Json* b) {
      return (str_of(*a, "class") == "triage") < (str_of(*b, "class") == "triage");
    });
    for (const Json* f : sorted) {
      std::string cls = str_of(*f, "class") == "triage" ? "triage" : "fail";
      std::string statements = num(num_of(*f, "statements"), 0);
      if (!str_of(*f, "minimized").empty()) {
        statements += " &#8594; " + num(num_of(*f, "minimized_statements"), 0);
      }
      std::string detail = str_of(*f, "detail");
      // The summary line skips the boilerplate every wrong rejection starts with.
      std::string summary = detail;
      const std::string boilerplate = "that eager runs: ";
      if (size_t at = summary.find(boilerplate); at != std::string::npos && at < 120) {
        summary = summary.substr(at + boilerplate.size());
      }
      h += "<tr><td class=\"" + cls + "\">" + xml_escape(str_of(*f, "bucket")) +
           "</td><td class=\"n\">" + num(num_of(*f, "count"), 0) + "</td><td class=\"n\">" +
           seed_of(*f, "first_seed") + "</td><td class=\"n\">" +
           num(num_of(*f, "found_at_seconds"), 1) + " s</td><td class=\"n\">" + statements +
           "</td><td>" + link(str_of(*f, "original"), "program") + "</td><td>" +
           link(str_of(*f, "minimized"), "minimized") + "</td><td>" +
           link(str_of(*f, "test"), "test") + "</td><td><details><summary>" +
           abbreviate(summary, 90) + "</summary><pre>" + xml_escape(str_of(*f, "signature")) +
           "\n\n" + xml_escape(detail) + "</pre></details></td></tr>\n";
    }
    h += "</tbody></table>\n";
  }

  if (r.contains("generator")) {
    const Json& g = r["generator"];
    double sampled = num_of(g, "programs");
    std::string first = num(num_of(g, "first_seed"), 0);
    std::string last = num(num_of(g, "first_seed") + sampled - 1, 0);
    h += "<h2>What the programs contain</h2>\n<p class=\"note\">The programs of seeds " + first +
         "&#8211;" + last + ", run again for these counts (<code>shapefuzz gen --stats " +
         num(sampled, 0) + " --seed " + first +
         "</code> prints the same; a guided campaign's "
         "mutants are not among them): " +
         num(sampled > 0 ? 100.0 * num_of(g, "reached_execution") / sampled : 0, 1) +
         "% reached execution, " +
         num(sampled > 0 ? 100.0 * num_of(g, "data_dependent") / sampled : 0, 1) +
         "% have a data-dependent op.</p>\n";
    for (const char* key : {"ops", "features", "keypath_kinds"}) {
      if (!g.contains(key)) continue;
      std::vector<std::pair<std::string, double>> hist;
      for (const auto& [k, v] : g[key].items()) hist.push_back({k, v.get<double>()});
      std::sort(hist.begin(), hist.end(), [](auto& a, auto& b) { return a.second > b.second; });
      std::string k = key;
      h += k == "ops" ? bar_table("Ops", "op", hist, sampled, "programs with the op")
           : k == "features"
               ? bar_table("Features", "feature", hist, sampled, "programs with the feature")
               : bar_table("Binding paths", "path entry kind", hist, 0,
                           "bindings (unbacked_bindings) whose path has an entry of the kind");
    }
  }
  h += "</body>\n</html>\n";
  return h;
}

}  // namespace sf::fuzz
