package dev.baton.sale;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A person's path through the Swagger UI, in Debian's headless Chromium driven by its chromedriver: open the purchase
 * operation, try it out, fill in the item and the buyer, execute, and see 201; the stock went down by one, and a
 * screenshot of the page is kept in {@code target/screenshots}. Runs in the {@code browser-tests} profile, active
 * where {@code /usr/bin/chromedriver} exists.
 */
class SwaggerUiBrowserIT {

    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    /** A loaded machine can take a while to render the page; this only bounds a broken page. */
    private static final Duration PAGE_TIMEOUT = Duration.ofSeconds(60);

    private static SaleInstance instance;
    private static Path profile;
    private static WebDriver browser;

    @BeforeAll
    static void start() throws IOException {
        instance = SaleInstance.start("sale-browser");
        profile = Files.createTempDirectory("baton-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,1400", "--user-data-dir=" + profile);
        // The driver is given explicitly, so Selenium Manager never looks for (or downloads) one.
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stop() throws IOException {
        try {
            if (browser != null) {
                browser.quit();
            }
        } finally {
            try {
                if (instance != null) {
                    instance.close();
                }
            } finally {
                deleteProfile();
            }
        }
    }

    @Test
    void purchasesThroughTheSwaggerUi() throws IOException {
        SaleApi api = new SaleApi(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(),
                instance.base());
        long before = api.item("gadget").stock();
        WebDriverWait wait = new WebDriverWait(browser, PAGE_TIMEOUT);

        browser.get(instance.base().resolve("/swagger-ui/index.html").toString());
        WebElement operation = wait.until(ExpectedConditions.presenceOfElementLocated(
                By.id("operations-Items-purchase")));
        click(wait, operation.findElement(By.cssSelector(".opblock-summary-control")));
        click(wait, wait.until(ExpectedConditions.elementToBeClickable(
                By.cssSelector("#operations-Items-purchase button.try-out__btn"))));
        type(wait, "item", "path", "gadget");
        type(wait, "user", "query", "swagger-ui-buyer");
        click(wait, operation.findElement(By.cssSelector("button.execute")));

        By status = By.cssSelector("#operations-Items-purchase .live-responses-table .response .response-col_status");
        // The cell shows the code, and "Undocumented" under a code the API does not declare (a 500, say).
        String shown = wait.until(driver -> {
            String text = driver.findElement(status).getText().strip();
            return text.isEmpty() ? null : text;
        });
        assertThat(shown).as("the status the page shows").startsWith("201");
        // The body is highlighted after the status is shown.
        By body = By.cssSelector("#operations-Items-purchase .live-responses-table .response-col_description pre");
        String receipt = wait.until(driver -> {
            String text = driver.findElement(body).getText();
            return text.contains("orderId") ? text : null;
        });
        assertThat(receipt).contains("\"item\": \"gadget\"").contains("\"user\": \"swagger-ui-buyer\"");
        assertThat(api.item("gadget").stock()).isEqualTo(before - 1);

        ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView({block: 'center'});",
                browser.findElement(status));
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Path screenshot = Path.of(System.getProperty("basedir", "."), "target", "screenshots",
                "swagger-purchase.png");
        Files.createDirectories(screenshot.getParent());
        Files.write(screenshot, png);

        assertThat(screenshot).exists();
        assertThat(Files.size(screenshot)).isGreaterThan(10_000);
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(Files.readAllBytes(screenshot)));
        assertThat(image).as("a PNG that decodes").isNotNull();
        assertThat(image.getWidth()).isGreaterThanOrEqualTo(800);
        assertThat(image.getHeight()).isGreaterThanOrEqualTo(600);
    }

    private static void type(WebDriverWait wait, String parameter, String in, String value) {
        WebElement input = wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector(
                "#operations-Items-purchase tr[data-param-name='" + parameter + "'][data-param-in='" + in
                        + "'] input")));
        input.clear();
        input.sendKeys(value);
    }

    private static void click(WebDriverWait wait, WebElement element) {
        wait.until(ExpectedConditions.elementToBeClickable(element)).click();
    }

    private static void deleteProfile() throws IOException {
        if (profile == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(profile)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
