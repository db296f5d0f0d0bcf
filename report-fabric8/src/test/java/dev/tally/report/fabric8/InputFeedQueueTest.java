package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.resource.InputResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The aggregator thread's queue is bounded by the objects, not by the events (docs/DESIGN.md,
 * section 9, "Caps"): however fast a namespace rewrites its objects, the events waiting for the
 * thread are at most the latest state of each object (and the removals between), in one task at a
 * time, and what the ledger receives is what it would have received event by event.
 */
class InputFeedQueueTest {
  private final List<Runnable> tasks = new ArrayList<>();
  private final List<String> handled = new ArrayList<>();

  private final InputInformers.Listener target =
      new InputInformers.Listener() {
        @Override
        public void upsert(HasMetadata resource) {
          handled.add("upsert " + id(resource));
        }

        @Override
        public void removed(HasMetadata resource) {
          handled.add("removed " + id(resource));
        }
      };

  @Test
  void aFloodOfEventsWaitsAsOneTaskHoldingTheLatestStateOfEachObject() {
    var listener = InputFeed.handing(tasks::add, target);
    for (int v = 1; v <= 10_000; v++) {
      listener.upsert(object("flood", "p" + (v % 10), v));
    }
    assertThat(tasks).as("tasks waiting for the aggregator thread").hasSize(1);
    runTasks();
    assertThat(handled).hasSize(10).allSatisfy(h -> assertThat(h).startsWith("upsert flood/p"));
    assertThat(handled).contains("upsert flood/p0@10000", "upsert flood/p9@9999");
  }

  @Test
  void aRemovalStaysAheadOfTheLatestUpsertOfItsObject() {
    var listener = InputFeed.handing(tasks::add, target);
    listener.upsert(object("a", "x", 1));
    listener.upsert(object("a", "x", 2));
    listener.removed(object("a", "x", 3)); // the last state, which carries what v2 said too
    listener.upsert(object("a", "x", 4)); // created again under the same name
    listener.upsert(object("b", "y", 5));
    listener.upsert(object("a", "x", 6));
    runTasks();
    assertThat(handled).containsExactly("removed a/x@3", "upsert a/x@6", "upsert b/y@5");

    listener.upsert(object("a", "x", 7));
    runTasks();
    assertThat(handled).endsWith("upsert a/x@7");
  }

  /**
   * An object deleted and created again under the same name, over and over within one hand-over,
   * waits as at most its last removal and its latest upsert: before, every removal was kept, so the
   * queue grew with the cycles.
   */
  @Test
  void deleteAndRecreateCyclesWaitAsOneRemovalAndTheLatestUpsert() {
    var listener = InputFeed.handing(tasks::add, target);
    listener.upsert(object("churn", "x", 1));
    for (int v = 2; v <= 20_000; v += 2) {
      listener.removed(object("churn", "x", v));
      listener.upsert(object("churn", "x", v + 1));
    }
    listener.upsert(object("quiet", "y", 30_000));
    assertThat(tasks).hasSize(1);
    runTasks();
    assertThat(handled)
        .containsExactly("removed churn/x@20000", "upsert churn/x@20001", "upsert quiet/y@30000");

    // ending on a removal: the last removal alone, which carries the object's last state
    handled.clear();
    for (int v = 40_000; v < 40_010; v += 2) {
      listener.upsert(object("churn", "x", v));
      listener.removed(object("churn", "x", v + 1));
    }
    runTasks();
    assertThat(handled).containsExactly("removed churn/x@40009");
  }

  /**
   * A watch's deletion of an input object carries its identity alone ({@link
   * InputResource#isIdentityOnly}): the last state it stands for is the upsert waiting before it,
   * which is handed over as the removal; with none waiting (handed over already), the identity is.
   */
  @Test
  void aDeletionReadAsItsIdentityHandsOverTheUpsertWaitingBeforeItAsTheRemoval() {
    var listener = InputFeed.handing(tasks::add, target);
    listener.upsert(object("a", "x", 1));
    listener.upsert(object("a", "x", 2));
    listener.removed(identity("a", "x", 3));
    listener.upsert(object("b", "y", 4));
    runTasks();
    assertThat(handled).containsExactly("removed a/x@2", "upsert b/y@4");

    handled.clear();
    listener.removed(identity("b", "y", 5)); // its upsert was handed over already
    runTasks();
    assertThat(handled).containsExactly("removed b/y@5");
  }

  private static HasMetadata identity(String namespace, String name, int version) {
    HasMetadata r = object(namespace, name, version);
    InputResource.identityOnly(r.getMetadata());
    return r;
  }

  private void runTasks() {
    while (!tasks.isEmpty()) {
      tasks.remove(0).run();
    }
  }

  private static String id(HasMetadata r) {
    return r.getMetadata().getNamespace()
        + "/"
        + r.getMetadata().getName()
        + "@"
        + r.getMetadata().getResourceVersion();
  }

  private static HasMetadata object(String namespace, String name, int version) {
    var r = new GenericKubernetesResource();
    r.setKind("PartialReport");
    r.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace(namespace)
            .withName(name)
            .withResourceVersion(Integer.toString(version))
            .build());
    return r;
  }
}
