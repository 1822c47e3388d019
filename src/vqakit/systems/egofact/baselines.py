"""The EgoFact paper's other Table-3 baselines, registered as methods by importing this module:

graphrag        GraphRAG local search over a graph of the clip descriptions and passages,
                through Microsoft's `graphrag` library (the graphrag extra) (`graphrag_method`,
                the graph in `graphrag_index`, the run's models inside GraphRAG in
                `graphrag_providers`)
videorag-jeong  VideoRAG (Jeong et al.): the top clips' frames and the top passages for the
                question, given directly to the vision model (`videorag_jeong`)
"""

from vqakit.systems.egofact import graphrag_method, videorag_jeong

__all__ = ["graphrag_method", "videorag_jeong"]
