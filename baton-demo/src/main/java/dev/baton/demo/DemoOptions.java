package dev.baton.demo;

import dev.baton.BatonConfig;
import java.time.Duration;
import java.util.Optional;

/**
 * The demo's command line, parsed and checked before anything is started.
 *
 * @param workers      number of worker processes
 * @param acquisitions lock acquisitions per worker
 * @param redisUri     a Redis of the user's own, or empty to start one
 * @param timeout      bound on the whole run, after which the workers are killed
 * @param help         whether only the usage text was asked for
 */
record DemoOptions(int workers, int acquisitions, Optional<String> redisUri, Duration timeout, boolean help) {

    static final int DEFAULT_WORKERS = 4;
    static final int DEFAULT_ACQUISITIONS = 250;
    static final int DEFAULT_TIMEOUT_SECONDS = 300;

    // Upper bounds keep a typo (an extra zero or two) from forking a hundred JVMs or running for hours.
    private static final int MAX_WORKERS = 64;
    private static final int MAX_ACQUISITIONS = 1_000_000;
    private static final int MAX_TIMEOUT_SECONDS = 86_400;

    static String usage() {
        return """
                Usage: java -jar baton-demo.jar [options]

                Starts a redis-server, then lets worker processes do unsafe GET/SET increments of a shared counter
                twice: first without a lock, where increments are lost and the resource catches workers overlapping,
                then each increment under one Baton lock, handing its fencing token to a resource that rejects stale
                tokens. Prints a summary of each run, explains its columns, and exits with 0 if, with the lock, the
                counter is exact, nothing overlapped and no token went backwards.

                Options:
                  --workers N        worker processes (default %d)
                  --acquisitions M   increments per worker in each run, so lock acquisitions in the second
                                     (default %d)
                  --redis URI        use this Redis (redis://[[user:]password@]host:port[/db]) instead of
                                     starting one. The demo checks that it answers before starting any worker,
                                     touches only keys starting with '%s', and deletes all of them when
                                     it ends, whether the run passed, failed or was interrupted (Ctrl-C)
                  --timeout SECONDS  give up and kill the workers after this long (default %d)
                  --help             print this text

                Exit codes: 0 all checks passed; 1 a check failed, a worker died, or the demo's keys could not be
                deleted; 2 bad command line; %d Redis did not answer or refused the demo (no worker was started).

                Log warnings (Baton's, e.g. a lost lease) are shown: the demo's own on stderr, its workers' in the
                summary. For Baton's debug lines as well:
                  java -Dorg.slf4j.simpleLogger.log.dev.baton=debug -jar baton-demo.jar
                """.formatted(DEFAULT_WORKERS, DEFAULT_ACQUISITIONS, FencedCounter.KEY_PREFIX, DEFAULT_TIMEOUT_SECONDS,
                Demo.EXIT_REDIS_UNAVAILABLE);
    }

    /**
     * Parses {@code --flag value} and {@code --flag=value} forms.
     *
     * @throws UsageException naming the offending flag
     */
    static DemoOptions parse(String... args) throws UsageException {
        int workers = DEFAULT_WORKERS;
        int acquisitions = DEFAULT_ACQUISITIONS;
        int timeoutSeconds = DEFAULT_TIMEOUT_SECONDS;
        String redisUri = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String flag = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                flag = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            switch (flag) {
                case "--help", "-h" -> {
                    return new DemoOptions(workers, acquisitions, Optional.empty(), Duration.ZERO, true);
                }
                case "--workers", "--acquisitions", "--timeout", "--redis" -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException(flag + " needs a value");
                        }
                        value = args[++i];
                    }
                    switch (flag) {
                        case "--workers" -> workers = intValue(flag, value, MAX_WORKERS);
                        case "--acquisitions" -> acquisitions = intValue(flag, value, MAX_ACQUISITIONS);
                        case "--timeout" -> timeoutSeconds = intValue(flag, value, MAX_TIMEOUT_SECONDS);
                        default -> redisUri = checkedUri(value);
                    }
                }
                default -> throw new UsageException("unknown option " + arg);
            }
        }
        return new DemoOptions(workers, acquisitions, Optional.ofNullable(redisUri),
                Duration.ofSeconds(timeoutSeconds), false);
    }

    /** Total acquisitions the run must end with, which is also what the counter must read. */
    long expectedAcquisitions() {
        return (long) workers * acquisitions;
    }

    private static int intValue(String flag, String value, int max) throws UsageException {
        int n;
        try {
            n = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new UsageException(flag + " must be a whole number, got '" + value + "'");
        }
        if (n < 1 || n > max) {
            throw new UsageException(flag + " must be between 1 and " + max + ", got " + n);
        }
        return n;
    }

    /** Lets Baton's own validation judge the URI, so the demo accepts exactly what the library accepts. */
    private static String checkedUri(String value) throws UsageException {
        try {
            BatonConfig.builder().uri(value).build();
        } catch (IllegalArgumentException e) {
            throw new UsageException("--redis: " + e.getMessage());
        }
        return value;
    }

    /** A URI with any user info (a password) replaced by {@code ***}, for printing. */
    static String redacted(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        return scheme < 0 || at < scheme ? uri : uri.substring(0, scheme + 3) + "***@" + uri.substring(at + 1);
    }

    /** A command line the demo cannot run with; the message names the flag. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}
