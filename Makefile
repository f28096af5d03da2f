# make lab  — set up .venv (once) and open the lessons in JupyterLab, offline, on the bundled model
# make test — set up .venv (once) and run the whole test suite (unit, lessons, browser checks) on two
#             workers, one torch thread each (each worker that runs browser checks starts its own JupyterLab)
# make unit — the fast tests only: the whole suite without the lessons' runs, the browser, the claims over
#             many draws, the site and the wheel (the loop while changing the package)
# make test-numerics — the rounding-sensitive tests (marked numerics) once per environment of the numerics
#             matrix (tests/numerics.py: MKL, OpenBLAS and ATen code paths, two threads), as other CPUs round
# make bench — the benchmarks: timings against the reference libraries, printed as ratios
# make student — the students' copy of the lessons, solution cells left out, in build/student/
# make site — the course website: every lesson executed (offline, one thread), rendered to build/site/html/
# Every install takes its exact versions from constraints.txt (pyproject.toml keeps ranges).
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: setup lab test unit test-numerics bench student site

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev,lab,site]'
	touch $@

lab: setup
	$(VENV)/bin/python -m xai_tf.tasks.tweets
	$(VENV)/bin/jupyter lab lessons/ $(if $(filter 0,$(shell id -u)),--allow-root)

test: setup
	$(VENV)/bin/python -m xai_tf.transformer.corpus
	$(VENV)/bin/python -m xai_tf.tasks.tweets
	$(VENV)/bin/python scripts/build_site.py --fetch
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy xai_tf
	OMP_NUM_THREADS=1 $(VENV)/bin/python -m pytest -n 2 --dist worksteal --durations=30

unit: setup
	OMP_NUM_THREADS=1 $(VENV)/bin/python -m pytest -n 2 --dist worksteal \
		-m "not notebooks and not browser and not claims and not site and not wheel"

test-numerics: setup
	$(VENV)/bin/python scripts/numerics_matrix.py

bench: setup
	for script in benchmarks/bench_*.py; do $(VENV)/bin/python $$script || exit 1; done

student: setup
	$(VENV)/bin/python scripts/student_copy.py --out build/student

site: setup
	$(VENV)/bin/python scripts/build_site.py --fetch
	$(VENV)/bin/python scripts/build_site.py --out build/site
