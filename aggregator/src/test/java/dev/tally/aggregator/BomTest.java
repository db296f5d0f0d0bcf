package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * bom/pom.xml ({@code dev.tally:tally-bom}) lists every module the build publishes at the project's
 * version, and nothing else: a module added to the build without {@code maven.deploy.skip} and
 * forgotten in the BOM, or a BOM entry for a module that is not published, fails here.
 */
class BomTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void theBomListsEveryPublishedModuleAtTheProjectsVersion() throws Exception {
    Document root = parse(ROOT.resolve("pom.xml"));
    String version = text(root.getDocumentElement(), "version");
    Set<String> published = new TreeSet<>();
    for (String module : texts(child(root.getDocumentElement(), "modules"), "module")) {
      if (module.equals("bom")) {
        continue;
      }
      Element pom = parse(ROOT.resolve(module).resolve("pom.xml")).getDocumentElement();
      Element properties = child(pom, "properties");
      boolean skipped = properties != null && "true".equals(text(properties, "maven.deploy.skip"));
      if (!skipped) {
        published.add(text(pom, "artifactId"));
      }
    }

    Element bom = parse(ROOT.resolve("bom/pom.xml")).getDocumentElement();
    assertThat(text(bom, "version")).as("tally-bom's version").isEqualTo(version);
    assertThat(child(bom, "parent"))
        .as("tally-bom has no parent: importing it would import the parent's management too")
        .isNull();
    Set<String> listed = new TreeSet<>();
    for (Element dependency :
        elements(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
      String artifact = text(dependency, "artifactId");
      assertThat(text(dependency, "groupId")).as(artifact + "'s groupId").isEqualTo("dev.tally");
      assertThat(text(dependency, "version")).as(artifact + "'s version").isEqualTo(version);
      listed.add(artifact);
    }
    assertThat(listed)
        .as("the modules tally-bom lists, against those the build publishes")
        .isEqualTo(published);
    assertThat(Files.readString(ROOT.resolve("README.md")))
        .as("the README's snippets import the BOM")
        .contains("<artifactId>tally-bom</artifactId>");
  }

  private static Document parse(Path pom) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(pom.toFile());
  }

  private static List<Element> elements(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    if (parent == null) {
      return found;
    }
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && element.getTagName().equals(name)) {
        found.add(element);
      }
    }
    return found;
  }

  private static Element child(Element parent, String name) {
    List<Element> found = elements(parent, name);
    return found.isEmpty() ? null : found.get(0);
  }

  private static String text(Element parent, String name) {
    Element element = child(parent, name);
    return element == null ? null : element.getTextContent().trim();
  }

  private static List<String> texts(Element parent, String name) {
    return elements(parent, name).stream().map(e -> e.getTextContent().trim()).toList();
  }
}
