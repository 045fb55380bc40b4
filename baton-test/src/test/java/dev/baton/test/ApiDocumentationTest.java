package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.DocumentationTool;
import javax.tools.JavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test kit's pages pass javadoc's doclint, all groups, without a single warning, in every build: javac's doclint
 * (in the compiler configuration) does not look at everything javadoc documents, such as the serialized form, so
 * javadoc itself runs here as the release profile runs it (packages on the class path), in a few seconds.
 */
class ApiDocumentationTest {

    @Test
    void javadocFindsNothingToWarnAbout(@TempDir Path pages) {
        Path sources = Path.of("src", "main", "java");
        assertThat(sources.resolve("dev").resolve("baton").resolve("test")).as("run from the module's directory")
                .isDirectory();
        DocumentationTool javadoc = ToolProvider.getSystemDocumentationTool();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        StringWriter output = new StringWriter();
        boolean done = javadoc.getTask(output, null, diagnostics, null,
                List.of("-quiet", "-Xdoclint:all", "-d", pages.toString(), "-classpath",
                        System.getProperty("java.class.path"), "-sourcepath", sources.toString(), "-subpackages",
                        "dev.baton.test"), null).call();

        List<String> problems = diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() != Diagnostic.Kind.NOTE && d.getKind() != Diagnostic.Kind.OTHER)
                .map(d -> d.getKind() + " " + (d.getSource() == null ? "" : d.getSource().getName() + ":"
                        + d.getLineNumber() + " ") + d.getMessage(Locale.ROOT))
                .toList();
        assertThat(problems).as(output.toString()).isEmpty();
        assertThat(done).as(output.toString()).isTrue();
        assertThat(Files.exists(pages.resolve("dev").resolve("baton").resolve("test").resolve("RedisServer.html")))
                .as("the pages were written").isTrue();
    }
}
