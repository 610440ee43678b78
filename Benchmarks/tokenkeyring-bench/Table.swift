/// The readable table printed at the end of a run.
enum Table {
    static func render(_ report: BenchReport) -> String {
        var lines: [String] = []
        lines.append(
            "TokenKeyring benchmarks — \(report.machine.cores) cores, load average \(report.machine.loadAverage), "
                + "started \(report.machine.startedAt)")
        lines.append("Medians, p99s and minimums over rounds; each ratio compares runs interleaved in this one process.")
        for figure in report.figures {
            lines.append("")
            lines.append("(\(figure.id)) \(figure.title)")
            if let skipped = figure.skipped { lines.append("    SKIPPED: \(skipped)") }
            if !figure.measures.isEmpty {
                lines.append(row("measure", "median", "p99", "min", "n"))
                for measure in figure.measures {
                    lines.append(
                        row(
                            measure.name,
                            Format.value(measure.summary.median, measure.unit),
                            Format.value(measure.summary.p99, measure.unit),
                            Format.value(measure.summary.min, measure.unit),
                            String(measure.summary.count)))
                }
            }
            if let counts = figure.counts { lines += render(counts) }
            for target in figure.targets {
                let verdict = target.met ? "MET   " : "MISSED"
                lines.append("    \(verdict) \(target.name): \(target.value) (target \(target.goal))")
            }
            for note in figure.notes { lines.append("    note: \(note)") }
        }
        return lines.joined(separator: "\n")
    }

    private static func render(_ table: CountTable) -> [String] {
        let width = max(table.heading.count, table.rows.map(\.name.count).max() ?? 0) + 2
        func line(_ name: String, _ cells: [String]) -> String {
            "    " + pad(name, width) + zip(cells, table.columns).map { pad($0, $1.count + 2, left: true) }.joined()
        }
        return [line(table.heading, table.columns)]
            + table.rows.map { line($0.name, $0.counts.map { Format.number(Double($0)) }) }
    }

    private static func row(_ name: String, _ median: String, _ p99: String, _ min: String, _ count: String) -> String {
        "    " + pad(name, 58) + pad(median, 14, left: true) + pad(p99, 14, left: true) + pad(min, 14, left: true)
            + pad(count, 7, left: true)
    }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? padding + text : text + padding
    }
}
