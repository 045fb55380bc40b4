package dev.baton.cli;

import java.io.Console;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import picocli.CommandLine.Option;

/**
 * How a command prints: aligned text for people (colour only on a terminal, never when {@code NO_COLOR} is set or
 * {@code --no-color} given), or {@code --json} for scripts, whose field names are stable (docs/cli.md).
 */
public final class OutputOptions {

    @Option(names = "--json", description = "Print JSON (stable field names, durations in milliseconds) instead of "
            + "text.")
    boolean json;

    @Option(names = "--no-color", description = "No colour, even on a terminal (also with NO_COLOR set).")
    boolean noColor;

    /**
     * Whether to print JSON.
     *
     * @return true with {@code --json}
     */
    public boolean json() {
        return json;
    }

    /**
     * Whether text output may use colour: stdout is a terminal, {@code NO_COLOR} is unset, {@code TERM} is not
     * {@code dumb}, and {@code --no-color} was not given.
     *
     * @return true if colour escapes may be printed
     */
    public boolean colour() {
        if (noColor || json || System.getenv("NO_COLOR") != null || "dumb".equals(System.getenv("TERM"))) {
            return false;
        }
        return stdoutIsTerminal();
    }

    /**
     * Whether stdin and stdout are a terminal, so that a question can be asked and answered.
     *
     * @return true on an interactive terminal
     */
    public static boolean interactive() {
        return stdoutIsTerminal();
    }

    /**
     * {@code text} in bold (or as is without colour).
     *
     * @param text the text
     * @return the text, maybe with escapes
     */
    public String bold(String text) {
        return colour() ? "\u001b[1m" + text + "\u001b[0m" : text;
    }

    /**
     * {@code text} in a colour that says "held" or "attention" (or as is without colour).
     *
     * @param text the text
     * @return the text, maybe with escapes
     */
    public String warn(String text) {
        return colour() ? "\u001b[33m" + text + "\u001b[0m" : text;
    }

    /**
     * {@code text} dimmed (or as is without colour).
     *
     * @param text the text
     * @return the text, maybe with escapes
     */
    public String dim(String text) {
        return colour() ? "\u001b[2m" + text + "\u001b[0m" : text;
    }

    /** Writes the text of {@link Json#write} and a newline. */
    public void printJson(PrintWriter out, Object value) {
        out.println(Json.write(value));
    }

    // System.console() is null when stdin or stdout is redirected up to JDK 21; from JDK 22 it may be a console
    // object even then, which says whether it is a terminal through isTerminal() (absent from the Java 17 API).
    private static boolean stdoutIsTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }
}
