package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import java.time.Duration;

/** Batons with short leases and timeouts, so that expiry and outage tests run in seconds. */
public final class TestBatons {
    public static final Duration LEASE = Duration.ofMillis(1500);
    public static final Duration TIMEOUT = Duration.ofMillis(500);
    public static final Duration RECHECK = Duration.ofMillis(300);
    /** The watchdog lease of {@link #patientConfig}: renewals a loaded machine delays by seconds still come in time. */
    public static final Duration PATIENT_LEASE = Duration.ofSeconds(30);
    /** The command timeout of {@link #patientConfig}: longer than any slow moment of a loaded machine seen so far. */
    public static final Duration PATIENT_TIMEOUT = Duration.ofSeconds(5);

    private TestBatons() {
    }

    public static BatonConfig config(String uri) {
        return BatonConfig.builder().uri(uri).watchdogLease(LEASE).commandTimeout(TIMEOUT)
                .recheckInterval(RECHECK).build();
    }

    /**
     * For tests that are not about timeouts or expiry (leaks, counts under load): a command timeout and a watchdog
     * lease that a loaded machine's slow moments cannot reach, so only what the test is about can fail it.
     */
    public static BatonConfig patientConfig(String uri) {
        return BatonConfig.builder().uri(uri).watchdogLease(PATIENT_LEASE).commandTimeout(PATIENT_TIMEOUT)
                .recheckInterval(RECHECK).build();
    }

    public static Baton connect(String uri) {
        return Baton.connect(config(uri));
    }
}
