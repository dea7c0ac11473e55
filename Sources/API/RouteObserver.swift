import Engine
import HTTPServer

/// Counts one route's responses (for one method) in the metrics: made when the route is registered, so a
/// request's sink carries a reference to it instead of a closure made per request.
final class RouteObserver: ResponseObserver {
    private let metrics: Metrics
    private let series: Metrics.RequestSeries

    init(_ metrics: Metrics, _ series: Metrics.RequestSeries) {
        self.metrics = metrics
        self.series = series
    }

    func observe(status: Int, seconds: Double) {
        metrics.observe(series, status: status, seconds: seconds)
    }
}
