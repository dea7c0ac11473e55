/// This build of specd, as `specd version`, `/v1/admin/status` and the OpenAPI document report it.
public enum Release {
    public static let version = "0.1.0"
}
