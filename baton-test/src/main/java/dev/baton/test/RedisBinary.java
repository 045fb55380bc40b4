package dev.baton.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Locates the {@code redis-server} binary used by {@link RedisServer}: a Redis server, or a server that runs as one
 * (Valkey's {@code valkey-server}, which prints {@code Valkey server v=8.0.1 ...} for {@code --version}).
 *
 * <p>Lookup order:
 * <ol>
 *   <li>the environment variable {@value #ENV_VAR}: either a path to an executable file, or the word
 *       {@value #EMBEDDED_WORD} to force the binary shipped in the embedded-redis jar;</li>
 *   <li>the system property {@value #PROPERTY}, with the same two forms: {@code -Dbaton.redis.server=...} on a Maven
 *       command line reaches every test JVM (surefire and failsafe pass the build's properties on). It comes after
 *       the variable because a build sets the variable for some test JVMs only (baton-core's execution on the
 *       embedded Redis), which a property from the command line, applied to all of them, must not undo; and child
 *       JVMs that a test starts inherit the variable, not the property;</li>
 *   <li>the first executable {@code redis-server} on {@code PATH};</li>
 *   <li>the binary shipped in the embedded-redis jar (Redis 6.2), chosen by {@code os.name}/{@code os.arch},
 *       extracted once per JVM to a temporary file that is made executable and deleted on JVM exit.</li>
 * </ol>
 *
 * <p>Failure behaviour: if {@value #ENV_VAR} or {@value #PROPERTY} names something that is not an executable regular
 * file, lookup fails with an {@link IllegalStateException} naming the property or variable rather than silently
 * falling back, so a misconfigured CI job does not test against an unexpected server; a blank value counts as unset.
 * If nothing is found and no embedded binary exists for this platform, lookup fails with an
 * {@link IllegalStateException} explaining how to provide one.
 *
 * <p>Instances are immutable apart from the lazily cached {@link #version()} and {@link #product()}, and are safe to
 * share between threads; {@link #supportsTls()} is cached per path for the JVM.
 */
public final class RedisBinary {

    /** System property that overrides the lookup unless {@value #ENV_VAR} is set. */
    public static final String PROPERTY = "baton.redis.server";

    /** Environment variable that overrides the lookup, before {@value #PROPERTY}. */
    public static final String ENV_VAR = "BATON_REDIS_SERVER";

    /** Value of {@value #PROPERTY} or {@value #ENV_VAR} that selects the binary shipped in the embedded-redis jar. */
    public static final String EMBEDDED_WORD = "embedded";

    private static final String EXECUTABLE_NAME = "redis-server";
    private static final long VERSION_TIMEOUT_SECONDS = 10;
    private static final Pattern VERSION = Pattern.compile("\\bv=(\\d[^\\s]*)");
    /** The server's name, the first word of {@code --version}'s line: "Redis server v=..." or "Valkey server v=...". */
    private static final Pattern PRODUCT = Pattern.compile("^(\\p{Alpha}+) server\\b");
    private static final byte[] OPENSSL_MARKER = "SSL_CTX_new".getBytes(StandardCharsets.US_ASCII);

    /** Where a binary was found. */
    public enum Source {
        /** Given by the {@value RedisBinary#ENV_VAR} environment variable. */
        ENV_PATH,
        /** Given by the {@value RedisBinary#PROPERTY} system property. */
        PROPERTY,
        /** Found as {@code redis-server} on {@code PATH}. */
        PATH,
        /** Extracted from the embedded-redis jar. */
        EMBEDDED
    }

    // Guarded by RedisBinary.class; extraction happens at most once per JVM (a failed attempt is retried).
    private static Path extractedEmbedded;
    /** {@link #supportsTls()} by path: {@link #locate()} makes a new instance per call, and a binary is megabytes. */
    private static final Map<Path, Boolean> TLS_SUPPORT = new ConcurrentHashMap<>();

    private final Path path;
    private final Source source;
    /** What {@code --version} printed, parsed; null until first asked. */
    private volatile Identity identity;

    /** The two things {@code --version} tells: the server's name and its version. */
    record Identity(String product, String version) {
    }

    private RedisBinary(Path path, Source source) {
        this.path = path;
        this.source = source;
    }

    /**
     * Locates the binary from the process environment, this JVM's system property {@value #PROPERTY} and the
     * platform, in the order given above.
     *
     * @return the binary to run
     * @throws IllegalStateException if {@value #PROPERTY} or {@value #ENV_VAR} is invalid, or no binary is available
     *         for this platform
     */
    public static RedisBinary locate() {
        return locate(System.getProperty(PROPERTY), System.getenv());
    }

    /** Same as {@link #locate()} but reads {@code env} instead of the environment, without the property (for tests). */
    static RedisBinary locate(Map<String, String> env) {
        return locate(null, env);
    }

    /**
     * Same as {@link #locate()} with {@code property} as the value of {@value #PROPERTY} (null: unset) and
     * {@value #ENV_VAR} and {@code PATH} read from {@code env} (for tests).
     */
    static RedisBinary locate(String property, Map<String, String> env) {
        Objects.requireNonNull(env, "env");
        RedisBinary named = named(ENV_VAR, env.get(ENV_VAR), Source.ENV_PATH);
        if (named == null) {
            named = named(PROPERTY, property, Source.PROPERTY);
        }
        if (named != null) {
            return named;
        }
        String searchPath = env.get("PATH");
        if (searchPath != null) {
            for (String dir : searchPath.split(Pattern.quote(File.pathSeparator))) {
                if (dir.isBlank()) {
                    continue; // an empty PATH entry means the working directory; never pick a binary from there
                }
                Path candidate = Paths.get(dir, EXECUTABLE_NAME);
                if (isExecutableFile(candidate)) {
                    return new RedisBinary(candidate.toAbsolutePath().normalize(), Source.PATH);
                }
            }
        }
        return embedded();
    }

    /** The binary a setting names, or null if it is unset or blank; {@code setting} is its name, for the message. */
    private static RedisBinary named(String setting, String configured, Source source) {
        if (configured == null || configured.isBlank()) {
            return null;
        }
        String value = configured.strip();
        if (value.equalsIgnoreCase(EMBEDDED_WORD)) {
            return embedded();
        }
        Path candidate = Paths.get(value).toAbsolutePath().normalize();
        if (!isExecutableFile(candidate)) {
            throw new IllegalStateException(setting + "=" + value + " is not an executable file; set it to the path of"
                    + " a redis-server (or valkey-server) binary, to '" + EMBEDDED_WORD + "', or unset it");
        }
        return new RedisBinary(candidate, source);
    }

    /**
     * The executable's absolute path.
     *
     * @return the path, normalized
     */
    public Path path() {
        return path;
    }

    /**
     * Where the binary was found.
     *
     * @return the lookup step that found it
     */
    public Source source() {
        return source;
    }

    /**
     * The version reported by {@code <binary> --version}, e.g. {@code "7.0.15"} for Redis 7.0.15 or {@code "8.0.1"}
     * for Valkey 8.0.1 (whose {@code INFO} still says {@code redis_version:7.2.4}, the Redis it is compatible with):
     * the server's own version, to be read together with {@link #product()}. The binary is run at most once per
     * instance (the result is cached; concurrent first calls may each run it).
     *
     * @return the version as printed after {@code v=}
     * @throws IllegalStateException if the binary cannot be run, does not exit within 10 s, or prints no version
     */
    public String version() {
        return identity().version();
    }

    /**
     * The server's name as {@code <binary> --version} prints it first: {@code "Redis"} or {@code "Valkey"}; "Redis"
     * if the line does not start with a name followed by {@code server}. Runs the binary as {@link #version()} does,
     * and at most once for both.
     *
     * @return the server's name
     * @throws IllegalStateException if the binary cannot be run, does not exit within 10 s, or prints no version
     */
    public String product() {
        return identity().product();
    }

    private Identity identity() {
        Identity id = identity;
        if (id == null) {
            id = parseVersionLine(path, runVersion());
            identity = id;
        }
        return id;
    }

    /** Reads name and version from {@code --version}'s output; package-private for tests. */
    static Identity parseVersionLine(Path binary, String output) {
        Matcher v = VERSION.matcher(output);
        if (!v.find()) {
            throw new IllegalStateException("cannot parse the version printed by " + binary + " --version: " + output);
        }
        Matcher p = PRODUCT.matcher(output);
        return new Identity(p.find() ? p.group(1) : "Redis", v.group(1));
    }

    /**
     * Whether the binary has TLS built in ({@code BUILD_TLS=yes}), as {@link RedisServer#startTls} needs. Told from
     * the binary itself, without running it: a build with TLS links OpenSSL, whose {@code SSL_CTX_new} its symbol
     * table names (statically or dynamically linked alike). Every binary of the embedded-redis jar has it. The answer
     * is cached for the JVM's lifetime.
     *
     * @return true if the binary links OpenSSL
     * @throws UncheckedIOException if the binary cannot be read
     */
    public boolean supportsTls() {
        return TLS_SUPPORT.computeIfAbsent(path, p -> contains(OPENSSL_MARKER));
    }

    private boolean contains(byte[] marker) {
        byte[] content;
        try {
            content = Files.readAllBytes(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
        outer:
        for (int i = 0; i + marker.length <= content.length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (content[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private String runVersion() {
        Process process;
        try {
            process = new ProcessBuilder(path.toString(), "--version").redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + path + " --version", e);
        }
        try {
            process.getOutputStream().close();
            // --version prints a single short line, so reading to EOF cannot block on a full pipe.
            String output;
            try (InputStream in = process.getInputStream()) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            }
            if (!process.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(path + " --version did not exit within " + VERSION_TIMEOUT_SECONDS + " s");
            }
            return output;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the output of " + path + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + path + " --version", e);
        } finally {
            process.destroyForcibly();
        }
    }

    private static boolean isExecutableFile(Path p) {
        return Files.isRegularFile(p) && Files.isExecutable(p);
    }

    /**
     * The binary inside the embedded-redis jar (Redis 6.2), extracted to a temporary file once per JVM, whatever
     * {@value #PROPERTY}, {@value #ENV_VAR} and {@code PATH} say: for a test that must run on Redis 6.2, say to check a fallback for
     * servers without Redis 7's commands.
     *
     * @return the embedded binary
     * @throws IllegalStateException if the jar has no binary for this platform or it cannot be extracted
     */
    public static RedisBinary embedded() {
        return new RedisBinary(extractEmbedded(), Source.EMBEDDED);
    }

    private static synchronized Path extractEmbedded() {
        if (extractedEmbedded != null && Files.isExecutable(extractedEmbedded)) {
            return extractedEmbedded;
        }
        String resource = embeddedResourceName(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
        try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " not found on the classpath; is"
                        + " com.github.codemonstur:embedded-redis a dependency? Alternatively set " + PROPERTY + " or "
                        + ENV_VAR);
            }
            Path target = Files.createTempFile("baton-" + resource + "-", "");
            target.toFile().deleteOnExit();
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            if (!target.toFile().setExecutable(true, true) || !Files.isExecutable(target)) {
                throw new IllegalStateException("cannot make " + target + " executable (is the temp directory"
                        + " mounted noexec?); install redis-server on PATH or set " + PROPERTY + " or " + ENV_VAR);
            }
            extractedEmbedded = target;
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract embedded " + resource + " to a temp file", e);
        }
    }

    /** Picks the embedded-redis resource for a platform; package-private for tests. */
    static String embeddedResourceName(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        boolean x86 = arch.equals("x86") || arch.equals("i386") || arch.equals("i686");
        if (os.contains("linux")) {
            if (x64) {
                return "redis-server-6.2.6-v5-linux-amd64";
            }
            if (arm64) {
                return "redis-server-6.2.7-linux-arm64";
            }
            if (x86) {
                return "redis-server-6.2.7-linux-386";
            }
        } else if (os.contains("mac") || os.contains("darwin")) {
            if (x64) {
                return "redis-server-6.2.6-v5-darwin-amd64";
            }
            if (arm64) {
                return "redis-server-6.2.6-v5-darwin-arm64";
            }
        }
        throw new IllegalStateException("no embedded redis-server for os.name=" + osName + ", os.arch=" + osArch
                + "; install redis-server on PATH or set " + PROPERTY + " or " + ENV_VAR + " to its path");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RedisBinary other && path.equals(other.path) && source == other.source;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, source);
    }

    @Override
    public String toString() {
        return "RedisBinary[" + source + " " + path + "]";
    }
}
