"""scikit-learn's estimators that stop without a linalg extension (PCA's
three solvers, LinearDiscriminantAnalysis, Ridge(solver="svd")) run on
DeviceArrays under array_api_dispatch and give NumPy's results."""

import pytest

# conftest.py sets SCIPY_ARRAY_API=1, which the dispatch needs, before
# anything imports SciPy
np = pytest.importorskip("numpy")
sklearn = pytest.importorskip("sklearn")

from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402

import devarray  # noqa: E402


def on_device(x):
    return devarray.asarray(np.ascontiguousarray(x))


def assert_rows_close_up_to_sign(got, expected, rtol):
    """Rows of got equal expected's, each up to a factor of -1 (singular
    vectors have no sign of their own)."""
    signs = np.sign(np.sum(got * expected, axis=-1, keepdims=True))
    np.testing.assert_allclose(got * signs, expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("solver", ["full", "covariance_eigh", "randomized"])
def test_pca(backend, rng, solver):
    x = rng.standard_normal((300, 12)) @ rng.standard_normal((12, 12))
    kwargs = dict(n_components=4, svd_solver=solver, random_state=0)
    if solver == "randomized":
        kwargs["power_iteration_normalizer"] = "QR"
    expected = PCA(**kwargs).fit(x)
    with sklearn.config_context(array_api_dispatch=True):
        got = PCA(**kwargs).fit(on_device(x))
        transformed = got.transform(on_device(x))
    assert isinstance(transformed, devarray.DeviceArray)
    np.testing.assert_allclose(got.explained_variance_.to_host(), expected.explained_variance_,
                               rtol=1e-8)
    assert_rows_close_up_to_sign(got.components_.to_host(), expected.components_, 1e-8)
    assert_rows_close_up_to_sign(transformed.to_host().T, expected.transform(x).T, 1e-7)


def test_linear_discriminant_analysis(backend, rng):
    x = rng.standard_normal((240, 6))
    y = rng.integers(0, 3, 240)
    x[y == 1] += 1.5
    x[y == 2] -= 1.0
    expected = LinearDiscriminantAnalysis(solver="svd").fit(x, y)
    with sklearn.config_context(array_api_dispatch=True):
        got = LinearDiscriminantAnalysis(solver="svd").fit(on_device(x), on_device(y))
        predicted = got.predict(on_device(x))
        probabilities = got.predict_proba(on_device(x))
    np.testing.assert_array_equal(predicted.to_host(), expected.predict(x))
    np.testing.assert_allclose(probabilities.to_host(), expected.predict_proba(x), rtol=1e-7,
                               atol=1e-10)


def test_ridge_svd(backend, rng):
    x = rng.standard_normal((200, 8))
    y = x @ rng.standard_normal(8) + 0.1 * rng.standard_normal(200)
    expected = Ridge(alpha=0.7, solver="svd").fit(x, y)
    with sklearn.config_context(array_api_dispatch=True):
        got = Ridge(alpha=0.7, solver="svd").fit(on_device(x), on_device(y))
        predicted = got.predict(on_device(x))
    np.testing.assert_allclose(got.coef_.to_host(), expected.coef_, rtol=1e-9)
    np.testing.assert_allclose(predicted.to_host(), expected.predict(x), rtol=1e-9)
