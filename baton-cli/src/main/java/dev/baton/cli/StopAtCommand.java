package dev.baton.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * For the commands that run a command ({@code exec}, {@code elect}): everything from the first positional argument
 * on belongs to that command, so {@code baton exec --lock x sh -c 'echo hi'} passes {@code -c} to {@code sh} instead
 * of refusing it as an unknown option of {@code baton}. {@code --} before the command does the same and stays the
 * documented form.
 */
public final class StopAtCommand implements CommandLine.IModelTransformer {
    /** Used by picocli through the {@code modelTransformer} attribute of {@code @Command}. */
    public StopAtCommand() {
    }

    @Override
    public CommandSpec transform(CommandSpec spec) {
        spec.parser().stopAtPositional(true);
        return spec;
    }
}
