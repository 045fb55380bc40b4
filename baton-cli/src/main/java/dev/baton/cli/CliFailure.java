package dev.baton.cli;

/**
 * A command that cannot go on: {@link BatonCli} prints its message on one line (never a stack trace) and exits with
 * its status. Messages must never contain a password: they quote URIs only through {@link ConnectionOptions}' redaction.
 */
public final class CliFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient ExitStatus status;

    /**
     * A failure.
     *
     * @param status  the exit status
     * @param message one line, without the {@code baton:} prefix
     */
    public CliFailure(ExitStatus status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    /**
     * The exit status.
     *
     * @return the status the process ends with
     */
    public ExitStatus status() {
        return status;
    }
}
