package dev.baton.cli;

import java.io.Console;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * The question a destructive command asks before it acts: on a terminal, "y" goes on and anything else stops
 * ({@link ExitStatus#FAILURE}); off a terminal (a script, a pipe) nobody can answer, so the command stops with
 * {@link ExitStatus#USAGE} unless {@code --yes} was given.
 */
final class Confirmation {
    private Confirmation() {
    }

    /**
     * Asks, unless {@code yes}.
     *
     * @param yes      whether {@code --yes} was given
     * @param question the question, e.g. "Remove these holds?"
     * @param out      where the question goes
     * @throws CliFailure if the answer is not yes, or there is nobody to answer
     */
    static void ask(boolean yes, String question, PrintWriter out) {
        if (yes) {
            return;
        }
        Console console = System.console();
        if (console == null || !OutputOptions.interactive()) {
            throw new CliFailure(ExitStatus.USAGE, "not on a terminal, so nobody can confirm: add --yes");
        }
        out.print(question + " [y/N] ");
        out.flush();
        String answer = console.readLine();
        if (answer == null || !answer.strip().toLowerCase(Locale.ROOT).startsWith("y")) {
            throw new CliFailure(ExitStatus.FAILURE, "not confirmed: nothing was changed");
        }
    }
}
