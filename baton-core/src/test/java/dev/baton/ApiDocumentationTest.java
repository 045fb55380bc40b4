package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.DocumentationTool;
import javax.tools.JavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The public API's pages pass javadoc's doclint, all groups, without a single warning, in every build. javac's doclint
 * (in the compiler configuration) checks the same groups at each compilation, but not the serialized form, which
 * javadoc documents too: the private fields of a serializable exception. Those went unnoticed until a release build
 * ran javadoc, so javadoc itself runs here, the way the release profile runs it (the module {@code dev.baton} on the
 * module path), in a few seconds.
 */
class ApiDocumentationTest {
    /** The libraries the module reads; other jars of the test class path would only be extra automatic modules. */
    private static final List<String> MODULE_PATH_JARS = List.of("lettuce", "netty", "reactor", "slf4j",
            "reactive-streams");

    @Test
    void javadocFindsNothingToWarnAbout(@TempDir Path pages) {
        Path sources = Path.of("src", "main", "java");
        assertThat(sources.resolve("module-info.java")).as("run from the module's directory").exists();
        String modulePath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> entry.endsWith(".jar") && MODULE_PATH_JARS.stream()
                        .anyMatch(name -> Path.of(entry).getFileName().toString().startsWith(name)))
                .collect(Collectors.joining(File.pathSeparator));
        DocumentationTool javadoc = ToolProvider.getSystemDocumentationTool();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        StringWriter output = new StringWriter();
        boolean done = javadoc.getTask(output, null, diagnostics, null,
                List.of("-quiet", "-Xdoclint:all", "-d", pages.toString(), "--module-path", modulePath,
                        "--module-source-path", "dev.baton=" + sources, "--module", "dev.baton"), null).call();

        List<String> problems = diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() != Diagnostic.Kind.NOTE && d.getKind() != Diagnostic.Kind.OTHER)
                .map(d -> d.getKind() + " " + (d.getSource() == null ? "" : d.getSource().getName() + ":"
                        + d.getLineNumber() + " ") + d.getMessage(Locale.ROOT))
                .toList();
        assertThat(problems).as(output.toString()).isEmpty();
        assertThat(done).as(output.toString()).isTrue();
        assertThat(Files.exists(pages.resolve("dev.baton").resolve("dev").resolve("baton")
                .resolve("ReplicaAcknowledgementException.html"))).as("the pages were written").isTrue();
    }
}
