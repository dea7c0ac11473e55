import Engine
import Foundation
import Store

extension Daemon {
    /// The storage gauges of `/metrics`, read from the data directory at each scrape (a scrape is rare; the write
    /// path counts nothing for them): the log's size on disk, the age of the newest snapshot, and how long recovery
    /// took at start.
    static func registerStorageGauges(_ metrics: Metrics, directory: String, recovery: Duration) {
        metrics.addGauge("log_bytes", help: "Size of the log segments on disk, in bytes, zeros reserved ahead of the records included.") {
            Double(Self.files(in: directory, prefix: "segment-", suffix: ".log").reduce(0) { $0 + $1.size })
        }
        metrics.addGauge("snapshot_age_seconds", help: "Seconds since the newest snapshot on disk was written (none: no sample).") {
            guard let newest = Self.files(in: directory, prefix: "snapshot-", suffix: ".snap").map(\.modified).max() else { return nil }
            return max(0, Date().timeIntervalSince(newest))
        }
        let seconds = Double(recovery.components.seconds) + Double(recovery.components.attoseconds) / 1e18
        metrics.addGauge("replay_duration_seconds", help: "Time recovery took at start: snapshot load and log replay.") { seconds }
    }

    private static func files(in directory: String, prefix: String, suffix: String) -> [(size: Int, modified: Date)] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return [] }
        return names.compactMap { name in
            guard name.hasPrefix(prefix), name.hasSuffix(suffix),
                let attributes = try? manager.attributesOfItem(atPath: (directory as NSString).appendingPathComponent(name))
            else { return nil }
            return ((attributes[.size] as? NSNumber)?.intValue ?? 0, (attributes[.modificationDate] as? Date) ?? Date())
        }
    }
}
