"""MSU (docs/msu.md): each row's score against the human solution, and the cache of each
solution's notions and keyword-set vector."""

from django.db import models

from reviewer.models.items import Item


class ItemMsu(models.Model):
    """One row's MSU: how close the model's solution is to the human one, and how it was made."""

    class State(models.TextChoices):
        PENDING = "pending"
        SCORED = "scored"
        NO_SCORE = "no_score", "no score"  # ``note`` says why (no human solution, no notions)
        ERROR = "error"  # ``note`` holds the error (endpoint down, model missing)

    item = models.OneToOneField(
        Item, on_delete=models.CASCADE, primary_key=True, related_name="msu"
    )
    state = models.CharField(max_length=16, choices=State, default=State.PENDING)
    score = models.FloatField(null=True, blank=True)  # cosine of the keyword-set vectors
    overlap = models.FloatField(null=True, blank=True)  # Jaccard index of the keyword sets
    model_notions = models.JSONField(default=list, blank=True)
    human_notions = models.JSONField(default=list, blank=True)
    extractor = models.CharField(max_length=200, blank=True)  # "lexical", "llm:<model>"
    extractor_version = models.CharField(max_length=100, blank=True)
    embedding_model = models.CharField(max_length=300, blank=True)
    embedding_semantic = models.BooleanField(default=False)
    note = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["state"], name="itemmsu_state")]

    def __str__(self) -> str:
        return f"{self.item_id}:{self.score}"


class MsuSolutionCache(models.Model):
    """The notions of one solution text and their keyword-set vector (the mean of the notions'
    unit embeddings, float32), per extractor and embedding model: ``grading.msu.msu_cache_key``.
    A human solution shared by many rows, or an output repeated, is extracted once."""

    key = models.CharField(max_length=64, primary_key=True)
    extractor = models.CharField(max_length=200)
    extractor_version = models.CharField(max_length=100)
    embedding_model = models.CharField(max_length=300)
    notions = models.JSONField(default=list)
    vector = models.BinaryField(blank=True)  # empty: none of the notions has an embedding
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.key
