package dev.baton.cli;

/**
 * The exit codes of {@code baton}, documented in docs/cli.md and in {@code baton --help}. {@code exec} and
 * {@code elect} exit with the command's own code when it ran to its end; the codes below say why it did not. They
 * follow {@code sysexits.h} and {@code timeout(1)} where those have a meaning that fits, so that shell scripts and
 * cron wrappers can tell "try again later" from "broken".
 */
public enum ExitStatus {
    /** Done. */
    OK(0, "success"),
    /** The command failed for another reason (the message says which), or the operator declined to confirm. */
    FAILURE(1, "failure (the message says why), or confirmation declined"),
    /** Bad usage: unknown command or option, bad value, unreadable password file, credentials refused by Redis. */
    USAGE(2, "bad usage: unknown command or option, bad value, credentials refused"),
    /** Redis could not be reached or did not answer in time ({@code EX_UNAVAILABLE}). */
    UNAVAILABLE(69, "Redis unavailable"),
    /** The lock was busy and {@code --wait 0} asked not to wait: the command was not run ({@code EX_TEMPFAIL}). */
    BUSY(75, "busy: the lock is held and --wait 0 was given; the command was not run"),
    /** The lease was lost while the command ran: the command was stopped. */
    LEASE_LOST(79, "lease lost while the command ran: the command was stopped"),
    /** The wait for the lock ran out: the command was not run (as {@code timeout(1)}). */
    TIMEOUT(124, "timed out waiting for the lock; the command was not run"),
    /** The command could not be started (not executable, or not found). */
    CANNOT_RUN(126, "the command could not be started");

    private final int code;
    private final String meaning;

    ExitStatus(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    /**
     * The process exit code.
     *
     * @return 0 to 255
     */
    public int code() {
        return code;
    }

    /**
     * What it means, for the help text.
     *
     * @return one line
     */
    public String meaning() {
        return meaning;
    }
}
