#if canImport(Glibc)
import Glibc
#endif

/// Writing to a pipe: what `peggle serve` does with each reply, and the lab's client with each
/// request.
public enum ServeOutput {
    /// Writes all of `bytes` to descriptor `fd` (a pipe may take a large write in pieces); false
    /// if the reader has gone away.
    public static func writeAll(to fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
